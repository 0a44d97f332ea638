import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterEach, describe, expect, it } from "vitest";
import { anna, base, ben, envelope, ws } from "../../../../test/fixtures/contacts.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller contacts export", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubPages(query: Record<string, string> = {}) {
    api.pool
      .intercept({ path: `${base}/contacts`, method: "GET", query: { per_page: "100", ...query } })
      .reply(200, envelope([anna], { next_cursor: "c2" }), { headers: jsonHeaders });
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "GET",
        query: { per_page: "100", cursor: "c2", ...query },
      })
      .reply(200, envelope([ben], {}), { headers: jsonHeaders });
  }

  it("writes an empty cell for a contact without a custom field named like what every object has (constructor)", async () => {
    api.pool
      .intercept({ path: `${base}/contacts`, method: "GET", query: { per_page: "100" } })
      .reply(
        200,
        envelope(
          [
            { ...anna, custom_fields: { constructor: "c" } },
            { ...ben, custom_fields: {} },
          ],
          {},
        ),
        { headers: jsonHeaders },
      );
    const output = join(mkdtempSync(join(tmpdir(), "reseller-export-")), "out.csv");
    const run = await runCli(["contacts", "export", "--output", output, "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    const rows = parse(readFileSync(output)) as string[][];
    expect(rows.map((row) => row.at(-1))).toEqual(["custom.constructor", "", "c"]);
  });

  it("writes every contact as CSV in the import's layout, custom fields as sorted custom.<key> columns", async () => {
    stubPages();
    const output = join(mkdtempSync(join(tmpdir(), "reseller-export-")), "out.csv");
    const run = await runCli(["contacts", "export", "--output", output, "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`Exported 2 contacts to ${output}.\n`);
    // People's phones and names: the new file is its owner's alone.
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const rows = parse(readFileSync(output)) as string[][];
    expect(rows[0]).toEqual([
      "phone",
      "first_name",
      "last_name",
      "email",
      "tags",
      "opt_in_status",
      "opt_in_source",
      "opted_in_at",
      "opted_out_at",
      "custom.city",
      "custom.note.x",
      "custom.shoe",
    ]);
    // Oldest first: the order the contacts were added, which an import of the file repeats.
    expect(rows[2]).toEqual([
      "+4915112345678",
      "Anna",
      "Schmidt",
      "anna@example.com",
      "vip,newsletter",
      "opted_in",
      "checkout form",
      "2026-11-20T08:00:00Z",
      "",
      "Berlin",
      "",
      "",
    ]);
    expect(rows[1]?.slice(9)).toEqual(["", 'says "hi", twice', "44"]);
  });

  it("refuses an --output file it cannot write before fetching anything (exit 2)", async () => {
    const output = join(tmpdir(), "no-such-folder-for-reseller", "out.csv");
    const run = await runCli(["contacts", "export", "--output", output, "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Cannot write --output file '${output}': its folder does not exist.`,
    );
    const folder = mkdtempSync(join(tmpdir(), "reseller-export-folder-"));
    const intoFolder = await runCli(["contacts", "export", "--output", folder, "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(intoFolder.code).toBe(2);
    expect(intoFolder.stderr).toContain(
      `Cannot write --output file '${folder}': it is a folder; name a file in it.`,
    );
  });

  it("says a disk that refuses the export's writes is full, not an unexpected error", async () => {
    stubPages();
    const run = await runCli(["contacts", "export", "--output", "/dev/full", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Error: Could not write: no space left on the device (ENOSPC).");
    expect(run.stderr).not.toContain("Unexpected error");
  });

  it("streams to standard output and passes the filters", async () => {
    stubPages({ tag: "vip" });
    const run = await runCli(["contacts", "export", "--tag", "vip", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^phone,first_name,/);
    expect(run.stdout.split("\n")).toHaveLength(4);
  });

  it("starts the CSV with a UTF-8 byte order mark with --bom, for Excel; with --json it is a usage error", async () => {
    stubPages();
    const run = await runCli(["contacts", "export", "--bom", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.startsWith("\ufeffphone,first_name,")).toBe(true);
    const json = await runCli(["contacts", "export", "--bom", "--json", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(json.code).toBe(2);
    expect(json.stderr).toContain("--bom is for CSV");
  });

  it("takes --output - as standard output", async () => {
    stubPages({ tag: "vip" });
    const run = await runCli(["contacts", "export", "--tag", "vip", "--output", "-", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^phone,first_name,/);
    expect(run.stderr).toContain("Exported 2 contacts.");
  });

  it("prints one JSON array of the service's records with --json, oldest first", async () => {
    stubPages();
    const run = await runCli(["contacts", "export", "--json", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([ben, anna]);
    expect(run.stderr).toBe("");
  });

  it("prints only the contacts' ids with --quiet, in the file's order", async () => {
    stubPages();
    const run = await runCli(["contacts", "export", "--quiet", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${ben.id}\n${anna.id}\n`);
    // A file named by --output is still the export: --quiet only keeps the terminal quiet.
    stubPages();
    const output = join(mkdtempSync(join(tmpdir(), "reseller-export-quiet-")), "backup.csv");
    const toFile = await runCli(["contacts", "export", "--quiet", "--output", output, "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toBe("");
    expect(readFileSync(output, "utf8")).toMatch(/^phone,first_name,/);
  });
});
