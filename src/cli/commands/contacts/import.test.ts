import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { base, envelope, importRecord, ws } from "../../../../test/fixtures/contacts.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi, replyAfterCtrlC } from "../../../../test/helpers/mock-api.js";

const csv =
  "phone,first_name,shoe size\n+4915112345678,Anna,38\n015112345679,Ben,\n+4915112345678,Annie,\nnot a phone,Carl,\n";

function tempFile(name: string, content?: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "reseller-import-")), name);
  if (content !== undefined) writeFileSync(file, content);
  return file;
}

const finished = importRecord({
  status: "completed",
  total_rows: 4,
  processed_rows: 4,
  created: 1,
  updated: 1,
  error_count: 2,
  errors: [
    { row: 2, phone: "015112345679", field: "phone", message: "phone has no country code" },
    { row: 4, phone: "not a phone", field: "phone", message: "phone is not a phone number" },
  ],
  ignored_columns: ["shoe size"],
  started_at: "2026-11-22T09:30:00Z",
  finished_at: "2026-11-22T09:30:05Z",
});

describe("reseller contacts import", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: ws, NO_COLOR: "1" });

  function stubUpload(expected: Record<string, unknown>) {
    api.pool
      .intercept({
        // The file streams as the body (text/csv); the options travel in the query.
        path: (path: string) => {
          const url = new URL(path, "http://x");
          return (
            url.pathname === `${base}/contacts/import` &&
            Object.entries(expected).every(([k, v]) => url.searchParams.get(k) === v)
          );
        },
        method: "POST",
        headers: { "content-type": "text/csv" },
      })
      .reply(202, envelope(importRecord()), { headers: jsonHeaders });
  }

  /** The service refusing the upload with a 422 about the file (`csv`), as invalidField words it. */
  function stubRefusal(message: string) {
    api.pool
      .intercept({ path: `${base}/contacts/import?duplicate_handling=update`, method: "POST" })
      .reply(
        422,
        {
          status: "error",
          error_code: "validation_failed",
          message: `csv: ${message}`,
          details: [{ field: "csv", message }],
        },
        { headers: jsonHeaders },
      );
  }

  function stubGet(record: ReturnType<typeof importRecord>, times = 1) {
    api.pool
      .intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" })
      .reply(200, envelope(record), { headers: jsonHeaders })
      .times(times);
  }

  it("uploads, shows a progress bar at a terminal, then the summary with the first row errors", async () => {
    stubUpload({ duplicate_handling: "skip", default_country: "DE" });
    stubGet(importRecord({ status: "processing", processed_rows: 2 }));
    stubGet(finished);
    const file = tempFile("contacts.csv", csv);
    const run = await runCli(
      ["contacts", "import", file, "--on-duplicate", "skip", "--default-country", "DE"],
      { tty: true, env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Import imp_01x queued: 4 rows from ${file}.`);
    expect(run.stderr).toMatch(/Importing .* 4\/4 rows/);
    expect(run.stdout).toMatch(/Created:\s+1/);
    expect(run.stdout).toMatch(/Errors:\s+2/);
    expect(run.stdout).toMatch(/2\s+015112345679\s+phone\s+phone has no country code/);
    expect(run.stderr).toContain(
      "Import imp_01x completed: 1 created, 1 updated, 0 skipped, 2 errors. Write every row error to a file with `reseller contacts imports get imp_01x -w ws_01acme --errors FILE`.",
    );
  });

  it("prints the final record as JSON without a progress bar, and writes every error with --errors", async () => {
    stubUpload({ duplicate_handling: "update" });
    stubGet(finished);
    api.pool
      .intercept({
        path: `${base}/contacts/imports/imp_01x/errors`,
        method: "GET",
        query: { per_page: "100" },
      })
      .reply(200, envelope(finished.errors.slice(0, 1), { next_cursor: "e2" }), {
        headers: jsonHeaders,
      });
    api.pool
      .intercept({
        path: `${base}/contacts/imports/imp_01x/errors`,
        method: "GET",
        query: { per_page: "100", cursor: "e2" },
      })
      .reply(200, envelope(finished.errors.slice(1), {}), { headers: jsonHeaders });
    const errors = tempFile("errors.csv");
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--errors", errors, "--json"],
      {
        env: env(),
        dispatcher: api.agent,
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "completed",
      created: 1,
      error_count: 2,
    });
    expect(run.stderr).not.toContain("Importing");
    expect(readFileSync(errors, "utf8")).toBe(
      "row,phone,field,message\n2,015112345679,phone,phone has no country code\n4,not a phone,phone,phone is not a phone number\n",
    );
  });

  it("returns at once with --no-wait", async () => {
    stubUpload({});
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--no-wait", "--quiet"],
      {
        env: env(),
        dispatcher: api.agent,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("imp_01x\n");
  });

  it("stops waiting after --timeout with exit 5, saying the import goes on and how to follow it", async () => {
    stubUpload({});
    // Polled every half second: two answers fit in one second.
    stubGet(importRecord({ status: "processing", total_rows: 4, processed_rows: 1 }), 2);
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--timeout", "1", "--json"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      error_code: "import_not_finished",
      details: [{ field: "import_id", message: "imp_01x" }],
    });
    expect(run.stderr).toContain(
      "Import imp_01x is still processing after 1 s (1 of 4 rows); it goes on in the service. Follow it with `reseller contacts imports get imp_01x`.",
    );
  });

  it("says how many opt-outs the import kept, in the summary and the record", async () => {
    stubUpload({});
    stubGet({ ...finished, error_count: 0, errors: [], opt_outs_kept: 2 });
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv)], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Opt-outs kept:\s+2/);
    expect(run.stderr).toContain(
      "2 rows say opted_in or not_set for a contact who opted out: they are not re-subscribed",
    );
  });

  it("exits 8 when the service is lost while following, saying the import goes on and not to send the file again", async () => {
    stubUpload({});
    for (let i = 0; i < 4; i++) {
      api.pool
        .intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" })
        .replyWithError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    }
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv)], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(8);
    expect(run.stderr).toContain(
      "Import imp_01x is stored and goes on in the service once it is back: follow it with `reseller contacts imports get imp_01x -w ws_01acme`; do not send the file again.",
    );
  });

  it("exits 3 when the token may import but not follow it, saying the import is queued", async () => {
    stubUpload({});
    api.pool.intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" }).reply(
      403,
      {
        status: "error",
        error_code: "insufficient_scope",
        message: "This endpoint needs the 'contacts:read' scope, which the token does not have.",
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv), "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      status: 403,
      error_code: "insufficient_scope",
    });
    expect(JSON.parse(run.stdout).error.message).toContain(
      "Import imp_01x is queued and will run, but this token cannot follow it",
    );
    expect(run.stderr).toContain("Do not send the file again");
  });

  it("exits 1 with the reason when the import fails", async () => {
    stubUpload({});
    stubGet(
      importRecord({ status: "failed", failure_reason: "Workspace 'ws_01acme' is suspended." }),
    );
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv)], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("failed: Workspace 'ws_01acme' is suspended.");
  });

  it("exits 6 with the service's reason when it refuses the file", async () => {
    stubRefusal("the header has no 'phone' column");
    const run = await runCli(["contacts", "import", tempFile("c.csv", "name\nAnna\n")], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("no 'phone' column");
    // Said once: the message is its one detail.
    expect(run.stderr.split("no 'phone' column")).toHaveLength(2);
  });

  it("says how the CLI spells the options a refusal names", async () => {
    stubRefusal("is not UTF-8 text; name its encoding with encoding (windows-1252, …)");
    const run = await runCli(["contacts", "import", tempFile("c.csv", "phone\n+4915112345678\n")], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("Hint: With `reseller contacts import`: encoding is --encoding.");
  });

  it("checks the file locally with --dry-run, sends nothing, and exits 0 with refused rows as the import would", async () => {
    const errors = tempFile("dry-errors.csv");
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--dry-run", "--errors", errors],
      {
        env: env(),
        dispatcher: api.agent,
      },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("rows\t4");
    expect(run.stdout).toContain("valid_rows\t2");
    expect(run.stdout).toContain("repeated_phones\t1");
    expect(run.stdout).toContain("ignored_columns\tshoe size");
    expect(run.stderr).toContain(
      "Dry run: 2 of 4 rows would be refused (1 row repeats an earlier row's phone: one contact each, the later row wins)",
    );
    expect(run.stdout).toContain("delimiter\t,\n");
    expect(readFileSync(errors, "utf8").split("\n")[1]).toMatch(/^2,015112345679,phone,/);
  });

  it("says a dry run's single row as one row, not 'all 1 rows'", async () => {
    const run = await runCli(
      ["contacts", "import", tempFile("one.csv", "phone\n+4915112345678\n"), "--dry-run"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Dry run: the 1 row can be imported; nothing was sent.");
  });

  it("refuses in a dry run, as the service would, a file whose quote never closes or whose header is over 64 KB", async () => {
    const cases = [
      [
        'phone,first_name\n+4915112345678,Anna\n+4915112345679,"Ben\n+4915112345670,Cem\n',
        "row 2 opens a quoted cell that is never closed",
      ],
      [
        `phone,${Array.from({ length: 8000 }, (_, i) => `column_${i}`).join(",")}\n+4915112345678\n`,
        "has no header row that can be read in its first 64 KB",
      ],
    ] as const;
    for (const [text, message] of cases) {
      const run = await runCli(["contacts", "import", tempFile("c.csv", text), "--dry-run"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
      // With --json, the service's own error code, as the real import's 422 would print.
      const json = await runCli(
        ["contacts", "import", tempFile("c.csv", text), "--dry-run", "--json"],
        { env: env(), dispatcher: api.agent },
      );
      expect(JSON.parse(json.stdout).error).toMatchObject({ error_code: "validation_failed" });
    }
  });

  it("exits 6 in a dry run with --strict when rows would be refused, as the import would", async () => {
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--dry-run", "--strict"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "Dry run: 2 of 4 rows would be refused (1 row repeats an earlier row's phone: one contact each, the later row wins)",
    );
    expect(run.stdout).toContain("delimiter\t,\n");
    expect(run.stderr).toContain("--strict: exit code 6");
  });

  it("refuses --strict with --no-wait (exit 2), which never sees the import's end, in a dry run too", async () => {
    for (const dry of [[], ["--dry-run"]]) {
      const run = await runCli(
        ["contacts", "import", tempFile("c.csv", csv), ...dry, "--strict", "--no-wait"],
        { env: env(), dispatcher: api.agent },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--strict fails the command when the import ends");
    }
  });

  it("says in a dry run under --on-duplicate skip that the first of two rows with one phone is kept", async () => {
    const run = await runCli(
      ["contacts", "import", tempFile("c.csv", csv), "--dry-run", "--on-duplicate", "skip"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.stderr).toContain(
      "(1 row repeats an earlier row's phone: one contact each, the first row is kept, the later skipped)",
    );
  });

  it("accepts national numbers in a dry run with --default-country and exits 0 when every row is fine", async () => {
    const run = await runCli(
      [
        "contacts",
        "import",
        tempFile("c.csv", "phone\n0151 12345678\n+4915223456789\n"),
        "--dry-run",
        "--default-country",
        "de",
        "--json",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 2, valid_rows: 2, error_count: 0 });
  });

  it("refuses an Excel workbook in a dry run, saying to save it as CSV", async () => {
    const file = tempFile("book.xlsx");
    writeFileSync(file, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]));
    const run = await runCli(["contacts", "import", file, "--dry-run"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is a ZIP archive (an Excel .xlsx");
    expect(run.stderr).toContain('save it as "CSV UTF-8"');
  });

  it("refuses in a dry run, as the service does, a file whose UTF-8 mark overrides --encoding", async () => {
    const file = tempFile("marked.csv");
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from("phone,first_name\n+4915112345678,J\xfcrgen\n", "latin1"),
      ]),
    );
    const run = await runCli(
      ["contacts", "import", file, "--dry-run", "--encoding", "windows-1252"],
      { env: env() },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "starts with a UTF-8 byte order mark but is not UTF-8 text: byte 0xFC (byte 37 of the file) is no UTF-8, so --encoding does not apply",
    );
  });

  it("refuses a file without a phone column in a dry run, and a missing file before any request", async () => {
    const dry = await runCli(
      ["contacts", "import", tempFile("c.csv", "name\nAnna\n"), "--dry-run"],
      { env: env() },
    );
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain("no 'phone' column");
    const missing = await runCli(["contacts", "import", "/nonexistent/file.csv"], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read '/nonexistent/file.csv': no such file.");
  });

  it("refuses an --errors path it cannot write, an unknown --default-country and --errors with --no-wait before any request", async () => {
    // No stub: any request would fail the test (mockApi refuses unmatched requests).
    const file = tempFile("c.csv", csv);
    const folder = await runCli(["contacts", "import", file, "--errors", "/nonexistent/e.csv"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("Cannot write --errors file '/nonexistent/e.csv'");
    const country = await runCli(["contacts", "import", file, "--default-country", "germany"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(country.code).toBe(2);
    expect(country.stderr).toContain("--default-country expects a two-letter country code");
    for (const [flag, value] of [
      ["--delimiter", "constructor"],
      ["--encoding", "toString"],
    ] as const) {
      const odd = await runCli(["contacts", "import", file, flag, value, "--dry-run"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(odd.code, odd.stderr).toBe(2);
      expect(odd.stderr).toContain(flag);
    }
    const noWait = await runCli(
      ["contacts", "import", file, "--no-wait", "--errors", tempFile("e.csv")],
      { env: env(), dispatcher: api.agent },
    );
    expect(noWait.code).toBe(2);
    expect(noWait.stderr).toContain("reseller contacts imports get <import_id> --errors FILE");
  });

  it("leaves an --errors file of an earlier run as it was when the service refuses the file", async () => {
    stubRefusal("the header has no 'phone' column");
    const errors = tempFile("errors.csv", "row,phone,field,message\n1,x,phone,earlier\n");
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv), "--errors", errors], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(readFileSync(errors, "utf8")).toBe("row,phone,field,message\n1,x,phone,earlier\n");
  });

  it("stops following on Ctrl-C, restoring the terminal and saying the import goes on", async () => {
    stubUpload({});
    api.pool
      .intercept({ path: `${base}/contacts/imports/imp_01x`, method: "GET" })
      .reply(replyAfterCtrlC(envelope(importRecord({ status: "processing", processed_rows: 2 }))));
    const run = await runCli(["contacts", "import", tempFile("c.csv", csv)], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain(
      "Stopped following import imp_01x; it goes on in the service. Follow it with `reseller contacts imports get imp_01x -w ws_01acme`.",
    );
    // The bar hid the cursor and turned wrapping off; both come back.
    expect(run.stderr).toContain("\u001b[?25h");
    expect(run.stderr).toContain("\u001b[?7h");
    expect(process.listenerCount("SIGINT")).toBe(0);
  });
});
