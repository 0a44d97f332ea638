import { afterEach, describe, expect, it } from "vitest";
import { base, envelope, importRecord, ws } from "../../../../test/fixtures/contacts.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller contacts imports get and list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: ws, NO_COLOR: "1" });
  /** `contacts imports get imp_01x`, piped, answered with `record`. */
  const importsGetPiped = (record: ReturnType<typeof importRecord>) => {
    api.pool
      .intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" })
      .reply(200, envelope(record), { headers: jsonHeaders });
    return runCli(["contacts", "imports", "get", "imp_01x"], { env: env(), dispatcher: api.agent });
  };

  it("shows a running import's progress and how to follow it", async () => {
    api.pool
      .intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" })
      .reply(
        200,
        envelope(importRecord({ status: "processing", total_rows: 10_000, processed_rows: 4000 })),
        {
          headers: jsonHeaders,
        },
      );
    const run = await runCli(["contacts", "imports", "get", "imp_01x"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Rows:\s+4,000 of 10,000 read/);
    expect(run.stderr).toContain("is processing: 4,000 of 10,000 rows read");
  });

  it("shows how the file was read: its mapping in --map's words, delimiter, encoding, default country", async () => {
    const record = importRecord({
      mapping: { "Phone 1 - Value": "phone", Name: "first_name", Notes: null },
      delimiter: "\t",
      encoding: "windows-1252",
      default_country: "DE",
    });
    const run = await importsGetPiped(record);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Phone 1 - Value=phone, Name=first_name, Notes=");
    expect(run.stdout).toMatch(/tab/);
    expect(run.stdout).toMatch(/windows-1252/);
    expect(run.stdout).toMatch(/\bDE\b/);
  });

  it("writes each row error piped as a line led by `errors`, so no line reads as a field of the record", async () => {
    const record = importRecord({
      error_count: 1,
      errors: [{ row: 2, phone: "+4915112340002", field: "email", message: "not an address" }],
    });
    const run = await importsGetPiped(record);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("errors\t2\t+4915112340002\temail\tnot an address");
    expect(lines.filter((line) => !/^[a-z_.]+\t/.test(line))).toEqual([]);
  });

  it("refuses --errors - (the errors would be mixed into the record on stdout), asking nothing", async () => {
    const run = await runCli(["contacts", "imports", "get", "imp_01x", "--errors", "-"], {
      env: { ...api.env, RESELLER_WORKSPACE: ws },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--errors - would mix the file into this command's output on stdout.",
    );
  });

  it("lists imports newest first, ids only with --quiet", async () => {
    api.pool
      .intercept({
        path: `${base}/contacts/imports`,
        method: "GET",
        query: { page: "1", per_page: "20" },
      })
      .reply(
        200,
        envelope([importRecord(), importRecord({ id: "imp_01w", import_id: "imp_01w" })], {}),
        {
          headers: jsonHeaders,
        },
      );
    const run = await runCli(["contacts", "imports", "list", "--quiet"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("imp_01x\nimp_01w\n");
  });
});
