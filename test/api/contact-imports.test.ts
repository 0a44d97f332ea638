import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ContactImportListResponse,
  ContactImportResponse,
  ImportErrorListResponse,
} from "../../src/contract/contact-imports.js";
import { type Contact, ContactListResponse } from "../../src/contract/contacts.js";
import { contactImportJob, importBatchRows } from "../../src/service/jobs/contact-import-job.js";
import { contactImportJobKind } from "../../src/service/jobs/job-kinds.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";
import { queuedImportJob } from "../helpers/import-jobs.js";
import { contactsLimitCatalogue } from "../helpers/plans-file.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** `rows` valid German mobile numbers, one per line, after a header. */
function phonesCsv(rows: number, extra = ""): string {
  const lines = ["phone,first_name"];
  for (let i = 0; i < rows; i++) lines.push(`+49151${String(10_000_000 + i)},Name${i}${extra}`);
  return `${lines.join("\n")}\n`;
}

describe("contact imports", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  const path = (rest: string) => `/api/v1/workspaces/${ws}/contacts${rest}`;

  async function start(csv: string, options: Record<string, unknown> = {}) {
    return t.request("POST", path("/import"), { body: { csv: base64(csv), ...options } });
  }

  /** Imports a CSV to the end and returns the finished record. */
  async function imported(csv: string, options: Record<string, unknown> = {}) {
    const res = await start(csv, options);
    expect(res.statusCode).toBe(202);
    const id = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    return ContactImportResponse.parse((await t.request("GET", path(`/imports/${id}`))).json())
      .data;
  }

  async function contacts(): Promise<Contact[]> {
    const res = await t.request("GET", path("?per_page=100"));
    return ContactListResponse.parse(res.json()).data;
  }

  async function byPhone(phone: string): Promise<Contact | undefined> {
    return (await contacts()).find((c) => c.phone === phone);
  }

  it("answers 202 at once with a queued import, which the background job completes", async () => {
    const res = await start("phone,first_name\n+4915112345678,Anna\n+4915223456789,Ben\n");
    expect(res.statusCode).toBe(202);
    const queued = ContactImportResponse.parse(res.json()).data;
    expect(queued).toMatchObject({
      status: "queued",
      import_id: queued.id,
      duplicate_handling: "update",
      total_rows: 2,
      processed_rows: 0,
      errors: [],
      ignored_columns: [],
      started_at: null,
    });
    expect(queued.id).toMatch(/^imp_/);
    expect((await contacts()).length).toBe(0);
    expect(await t.runJobs()).toBe(1);
    const done = ContactImportResponse.parse(
      (await t.request("GET", path(`/imports/${queued.id}`))).json(),
    ).data;
    expect(done).toMatchObject({
      status: "completed",
      total_rows: 2,
      processed_rows: 2,
      created: 2,
      updated: 0,
      skipped: 0,
      error_count: 0,
      started_at: "2026-11-22T09:30:00Z",
      finished_at: "2026-11-22T09:30:00Z",
    });
    const list = ContactImportListResponse.parse((await t.request("GET", path("/imports"))).json());
    expect(list.data.map((i) => i.id)).toEqual([queued.id]);
  });

  it("reads BOM, CRLF, quoted newlines, any-case headers, tag separators and custom.<key> columns", async () => {
    const csv =
      "\ufeff Phone ,FIRST_NAME,Last_Name,Email,Tags,Opt_In_Status,custom.Birthday,Shoe Size\r\n" +
      '+4915112345678,Anna,"Schmidt\r\nvon Berg",anna@example.com,"vip, newsletter;b2b|vip",opted_in,1990-01-01,38\r\n' +
      "+4915223456789,Ben,,,,,,\r\n";
    const done = await imported(csv);
    expect(done).toMatchObject({ created: 2, error_count: 0, ignored_columns: ["Shoe Size"] });
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "Anna",
      last_name: "Schmidt\r\nvon Berg",
      email: "anna@example.com",
      tags: ["vip", "newsletter", "b2b"],
      opt_in_status: "opted_in",
      opt_in_source: `import:${done.id}`,
      opted_in_at: "2026-11-22T09:30:00Z",
      custom_fields: { Birthday: "1990-01-01" },
    });
    expect(await byPhone("+4915223456789")).toMatchObject({
      last_name: null,
      tags: [],
      opt_in_status: "not_set",
      custom_fields: {},
    });
  });

  it("takes custom.<key> columns with any key a client uses: spaces, umlauts, punctuation", async () => {
    const csv =
      "phone,custom.Plan Name,custom.Größe,custom.Kunde seit (Jahr)\n+4915112345678,gold,L,2019\n";
    const done = await imported(csv);
    expect(done).toMatchObject({ created: 1, error_count: 0, ignored_columns: [] });
    expect((await byPhone("+4915112345678"))?.custom_fields).toEqual({
      "Plan Name": "gold",
      Größe: "L",
      "Kunde seit (Jahr)": "2019",
    });
  });

  it("turns every bad row into a row error with its row number, phone, field and message, and imports the rest", async () => {
    const csv = [
      "phone,email,opt_in_status,tags",
      "+4915112345678,anna@example.com,opted_in,vip",
      "015112345679,,,",
      "+4900000000,,,",
      "+4915223456789,not-an-email,,",
      "+4915223456780,,maybe,",
      ",,,",
      "+4915223456781,,,a tag that is much too long to be a tag because it is longer than sixty-four chars",
      "+4915223456782,x@example.com,not_set,ok,extra",
      '+4915223456783,"broken"quote,,',
      "+4915223456784,,,",
    ].join("\n");
    const done = await imported(csv);
    expect(done).toMatchObject({
      status: "completed",
      created: 2,
      error_count: 7,
      processed_rows: 9,
      total_rows: 9,
    });
    expect(done.errors.map((e) => [e.row, e.phone, e.field])).toEqual([
      [2, "015112345679", "phone"],
      [3, "+4900000000", "phone"],
      [4, "+4915223456789", "email"],
      [5, "+4915223456780", "opt_in_status"],
      [6, "+4915223456781", "tags"],
      [7, "+4915223456782", "row"],
      [8, "+4915223456783", "email"],
    ]);
    expect(done.errors[0]?.message).toContain("default_country");
    expect(done.errors[1]?.message).toContain("not a valid number");
    expect(done.errors[3]?.message).toContain("opted_in, not_set, opted_out");
    const all = ImportErrorListResponse.parse(
      (await t.request("GET", path(`/imports/${done.id}/errors?per_page=5`))).json(),
    );
    expect(all.data.map((e) => e.row)).toEqual([2, 3, 4, 5, 6]);
    expect(all.meta.pagination.total).toBe(7);
    const rest = ImportErrorListResponse.parse(
      (
        await t.request(
          "GET",
          path(`/imports/${done.id}/errors?per_page=5&cursor=${all.meta.pagination.next_cursor}`),
        )
      ).json(),
    );
    expect(rest.data.map((e) => e.row)).toEqual([7, 8]);
  });

  it("reports a quote left open on the last row as a row error instead of failing", async () => {
    // Open earlier, it would take the later rows with it: that file is refused whole (a 422).
    const done = await imported(
      'phone,first_name\n+4915112345678,Anna\n+4915223456780,Carl\n+4915223456789,"Ben\n',
    );
    expect(done).toMatchObject({ status: "completed", created: 2, error_count: 1 });
    expect(done.errors[0]).toMatchObject({ row: 3, field: "row" });
    expect(done.errors[0]?.message).toContain("never closed");
  });

  it("normalises national numbers with default_country and never guesses a country without it", async () => {
    const csv = "phone\n0151 1234 5678\n(0152) 234-56789\n0049 157 12345678\n+44 7911 123456\n";
    const withCountry = await imported(csv, { default_country: "de" });
    expect(withCountry).toMatchObject({ created: 4, error_count: 0, default_country: "DE" });
    expect((await contacts()).map((c) => c.phone).sort()).toEqual([
      "+447911123456",
      "+4915112345678",
      "+4915223456789",
      "+4915712345678",
    ]);
    const without = await imported(csv);
    expect(without).toMatchObject({ updated: 1, error_count: 3 });
  });

  it("treats a phone twice in one file as one contact: the later row wins under update", async () => {
    const done = await imported(
      "phone,first_name,tags\n+4915112345678,Anna,a\n+4915112345678,Annie,b\n",
    );
    expect(done).toMatchObject({ created: 1, updated: 1, skipped: 0 });
    expect(await contacts()).toHaveLength(1);
    expect(await byPhone("+4915112345678")).toMatchObject({ first_name: "Annie", tags: ["b"] });
  });

  it("finds a phone twice in one file by the name of its later row", async () => {
    await imported(
      "phone,first_name\n+4915112345678,Anna\n+4915112345678,Annie\n+4915223456789,Ben\n",
    );
    const found = async (q: string) =>
      ((await t.request("GET", path(`?search=${q}`))).json() as { data: Contact[] }).data.length;
    expect(await found("annie")).toBe(1);
    expect(await found("anna")).toBe(0);
  });

  it("leaves existing contacts unchanged under skip and overwrites non-empty cells under update", async () => {
    await t.request("POST", path(""), {
      body: {
        phone: "+4915112345678",
        first_name: "Anna",
        last_name: "Schmidt",
        opt_in_status: "opted_in",
      },
    });
    const csv =
      "phone,first_name,last_name,opt_in_status\n+4915112345678,Annie,,\n+4915223456789,Ben,,\n";
    const skipped = await imported(csv, { duplicate_handling: "skip" });
    expect(skipped).toMatchObject({
      duplicate_handling: "skip",
      created: 1,
      skipped: 1,
      updated: 0,
    });
    expect(await byPhone("+4915112345678")).toMatchObject({ first_name: "Anna" });
    const updated = await imported(csv);
    expect(updated).toMatchObject({ created: 0, updated: 2 });
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "Annie",
      last_name: "Schmidt",
      opt_in_status: "opted_in",
    });
  });

  it("records an opt-out from the file under skip too, leaving the rest of the contact as it was", async () => {
    await t.request("POST", path(""), {
      body: {
        phone: "+4915112345678",
        first_name: "Anna",
        opt_in_status: "opted_in",
        opted_in_at: "2026-10-01T08:00:00Z",
      },
    });
    const done = await imported(
      "phone,first_name,opt_in_status,opted_out_at\n+4915112345678,Annie,opted_out,2026-11-01T08:00:00Z\n+4915223456789,Ben,opted_in,\n+4915223456789,Ben,opted_out,\n",
      { duplicate_handling: "skip" },
    );
    expect(done).toMatchObject({ created: 1, updated: 2, skipped: 0, error_count: 0 });
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "Anna",
      opt_in_status: "opted_out",
      opted_out_at: "2026-11-01T08:00:00Z",
    });
    expect((await byPhone("+4915223456789"))?.opt_in_status).toBe("opted_out");
    // Each withdrawal has its event, the one of a contact an earlier row created included.
    const events = (await t.request("GET", "/api/v1/events?type=contact.opted_out")).json().data;
    expect(events).toHaveLength(2);
  });

  it("skips under skip an opt-out older than the consent the contact gave since", async () => {
    await t.request("POST", path(""), {
      body: {
        phone: "+4915112345678",
        opt_in_status: "opted_in",
        opted_in_at: "2026-11-10T08:00:00Z",
      },
    });
    const done = await imported(
      "phone,opt_in_status,opted_out_at\n+4915112345678,opted_out,2026-01-01T08:00:00Z\n",
      { duplicate_handling: "skip" },
    );
    expect(done).toMatchObject({ updated: 0, skipped: 1 });
    expect((await byPhone("+4915112345678"))?.opt_in_status).toBe("opted_in");
  });

  it("records opt-outs from the file with their time, and never re-subscribes on an empty cell", async () => {
    await t.request("POST", path(""), {
      body: { phone: "+4915112345678", opt_in_status: "opted_in" },
    });
    const done = await imported(
      "phone,opt_in_status,opted_out_at\n+4915112345678,opted_out,2026-11-01T08:00:00Z\n+4915223456789,opted_out,\n",
    );
    expect(done.error_count).toBe(0);
    expect(await byPhone("+4915112345678")).toMatchObject({
      opt_in_status: "opted_out",
      opted_out_at: "2026-11-01T08:00:00Z",
    });
    expect(await byPhone("+4915223456789")).toMatchObject({
      opt_in_status: "opted_out",
      opted_out_at: "2026-11-22T09:30:00Z",
    });
    await imported("phone,first_name,opt_in_status\n+4915112345678,Anna,\n");
    expect((await byPhone("+4915112345678"))?.opt_in_status).toBe("opted_out");
  });

  it("turns rows past the plan's contacts limit into row errors and still updates existing contacts", async () => {
    await t.close();
    t = await startTestApp({ plansFile: contactsLimitCatalogue(2) });
    ws = await t.createWorkspace({ plan_id: "1" });
    await t.request("POST", path(""), { body: { phone: "+4915112345678" } });
    const done = await imported(
      "phone,first_name\n+4915112345678,Anna\n+4915223456789,Ben\n+4915223456780,Carl\n+4915223456781,Dora\n",
    );
    expect(done).toMatchObject({ created: 1, updated: 1, error_count: 2 });
    expect(done.errors.map((e) => e.row)).toEqual([3, 4]);
    expect(done.errors[0]?.message).toContain("plan allows 2 contacts");
  });

  it("never passes the plan's contacts limit with an import and single creates at once", async () => {
    await t.close();
    t = await startTestApp({ plansFile: contactsLimitCatalogue(5) });
    ws = await t.createWorkspace({ plan_id: "1" });
    const queued = await t.request("POST", path("/import"), {
      body: { csv: base64(phonesCsv(8)) },
    });
    expect(queued.statusCode, queued.body).toBe(202);
    const creates = Array.from({ length: 5 }, (_, i) =>
      t.request("POST", path(""), { body: { phone: `+4915223456${String(700 + i)}` } }),
    );
    await Promise.all([t.runJobs(), ...creates]);
    await t.runJobs();
    const listed = (await t.request("GET", path("?per_page=100"))).json();
    expect(listed.meta.pagination.total).toBeLessThanOrEqual(5);
  });

  it.each([
    [{ csv: "not base64!" }, "csv", "base64"],
    [{ csv: base64("first_name,email\nAnna,a@b.co\n") }, "csv", "no 'phone' column"],
    [{ csv: base64("phone,Phone\n+4915112345678,x\n") }, "csv", "twice"],
    [
      { csv: Buffer.from([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xff, 0xfe]).toString("base64") },
      "csv",
      "UTF-8",
    ],
    [
      { csv: base64("phone\n+4915112345678\n"), default_country: "Germany" },
      "default_country",
      "two-letter",
    ],
    [
      { csv: base64("phone\n+4915112345678\n"), duplicate_handling: "merge" },
      "duplicate_handling",
      "update or skip",
    ],
    [{ csv: "" }, "csv", "empty"],
  ])("refuses %j with a 422 that names %s", async (body, field, words) => {
    const res = await t.request("POST", path("/import"), { body });
    expect(res.statusCode).toBe(422);
    expect(res.json().error_code).toBe("validation_failed");
    expect(res.json().details[0].field).toBe(field);
    expect(res.json().message).toContain(words);
    const list = ContactImportListResponse.parse((await t.request("GET", path("/imports"))).json());
    expect(list.data).toEqual([]);
  });

  it("names a default_country that is no country along with a bad duplicate_handling", async () => {
    const res = await t.request("POST", path("/import"), {
      body: {
        csv: base64("phone\n+4915112345678\n"),
        default_country: "XX",
        duplicate_handling: "x",
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "duplicate_handling", message: "duplicate_handling must be update or skip" },
      {
        field: "default_country",
        message: "'XX' is not a two-letter country code such as DE, US or GB",
      },
    ]);
  });

  it("refuses upload options in the query beside a JSON body, rather than import without them", async () => {
    const res = await t.request("POST", `${path("/import")}?duplicate_handling=skip`, {
      body: { csv: base64("phone\n+4915112345678\n") },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      {
        field: "duplicate_handling",
        message:
          "is read from the query only with a text/csv body; with a JSON body, give it in the body",
      },
    ]);
    const list = await t.request("GET", path("/imports"));
    expect(list.json().data).toEqual([]);
  });

  it("refuses more than 1,000,000 rows with a 413 and stores nothing", async () => {
    const csv = `phone\n${"+4915112345678\n".repeat(1_000_001)}`;
    const res = await start(csv);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error_code: "payload_too_large" });
    expect(res.json().message).toContain("1,000,001");
  });

  it("refuses an import into a suspended workspace (409) and another reseller's (404)", async () => {
    const other = await t.otherReseller();
    const res = await t.request("POST", path("/import"), {
      token: other,
      body: { csv: base64("phone\n") },
    });
    expect(res.statusCode).toBe(404);
    await t.request("PATCH", `/api/v1/workspaces/${ws}`, { body: { status: "suspended" } });
    expect((await start("phone\n+4915112345678\n")).statusCode).toBe(409);
    expect((await t.request("GET", path("/imports/imp_nope"))).statusCode).toBe(404);
  });

  /** The queued job of an import and the handler that runs it, for a test to run by hand. */
  const importJobOf = async (importId: string) => {
    const handler = contactImportJob({
      db: t.database.db,
      clock: t.clock,
      jobs: { enqueue: async () => "", poke: () => {} },
    });
    return { handler, job: await queuedImportJob(t.database.db, importId) };
  };

  it("ends an import failed, with the reason, exactly when its job is given up after five failing tries in a row", async () => {
    const res = await start(phonesCsv(10));
    const importId = ContactImportResponse.parse(res.json()).data.id;
    // Its run fails every time (as a bug would): the threaded runner, for a file made large.
    await t.database.db
      .updateTable("contact_imports")
      .set({ csv_bytes: 1e9 })
      .where("id", "=", importId)
      .execute();
    const runner = new JobRunner({
      db: t.database.db,
      clock: t.clock,
      handlers: {
        [contactImportJobKind]: contactImportJob(
          { db: t.database.db, clock: t.clock, jobs: { enqueue: async () => "", poke: () => {} } },
          async () => {
            throw new Error("a bug in the importer");
          },
        ),
      },
    });
    const status = async () => (await t.request("GET", path(`/imports/${importId}`))).json().data;
    for (let i = 0; i < 4; i++) {
      await runner.runDue();
      expect((await status()).status, `try ${i + 1}`).not.toBe("failed");
      t.clock.advance(120_000);
    }
    await runner.runDue();
    const ended = await status();
    expect(ended.status).toBe("failed");
    expect(ended.failure_reason).toContain("a bug in the importer");
  });

  it("stops an import under way when its workspace is suspended: failed, the rows written before kept", async () => {
    const csv = phonesCsv(importBatchRows * 2 + 500);
    const res = await start(csv);
    const importId = ContactImportResponse.parse(res.json()).data.id;
    const { handler, job } = await importJobOf(importId);
    const result = await handler(job, {
      db: t.database.db,
      clock: t.clock,
      signal: new AbortController().signal,
      // The reseller suspends the workspace right after the first batch is written.
      checkpoint: async (trx) => {
        await trx
          .updateTable("workspaces")
          .set({ status: "suspended" })
          .where("id", "=", ws)
          .execute();
      },
      lease: { jobId: job.id, owner: "test", ms: 30_000 },
    });
    expect(result).toEqual({ state: "done" });
    const ended = (await t.request("GET", path(`/imports/${importId}`))).json().data;
    expect(ended).toMatchObject({
      status: "failed",
      processed_rows: importBatchRows,
      created: importBatchRows,
    });
    expect(ended.failure_reason).toContain("suspended");
  });

  it("resumes an interrupted import from its checkpoint and ends with the counts of an uninterrupted run", async () => {
    const rows = importBatchRows * 2 + 500;
    const csv = phonesCsv(rows);
    // The same file imported without interruption into another workspace, for comparison.
    const reference = await imported(csv);

    const other = await t.createWorkspace({ name: "Interrupted" });
    const res = await t.request("POST", `/api/v1/workspaces/${other}/contacts/import`, {
      body: { csv: base64(csv) },
    });
    const importId = ContactImportResponse.parse(res.json()).data.id;
    const { handler, job } = await importJobOf(importId);
    const stop = new AbortController();
    let saved: unknown = null;
    const first = await handler(job, {
      db: t.database.db,
      clock: t.clock,
      signal: stop.signal,
      checkpoint: async (_trx, data) => {
        saved = data;
        stop.abort();
      },
      lease: { jobId: job.id, owner: "test", ms: 30_000 },
    });
    expect(first).toEqual({ state: "interrupted" });
    const halfway = ContactImportResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${other}/contacts/imports/${importId}`)).json(),
    ).data;
    expect(halfway).toMatchObject({
      status: "processing",
      processed_rows: importBatchRows,
      created: importBatchRows,
    });

    const second = await handler(
      { ...job, attempts: 2, checkpoint: saved },
      {
        db: t.database.db,
        clock: t.clock,
        signal: new AbortController().signal,
        checkpoint: async () => {},
        lease: { jobId: job.id, owner: "test", ms: 30_000 },
      },
    );
    expect(second).toEqual({ state: "done" });
    const resumed = ContactImportResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${other}/contacts/imports/${importId}`)).json(),
    ).data;
    const counts = (i: typeof resumed) => [
      i.status,
      i.total_rows,
      i.processed_rows,
      i.created,
      i.updated,
      i.skipped,
      i.error_count,
    ];
    expect(counts(resumed)).toEqual(counts(reference));
    const total = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${other}/contacts?per_page=1`)).json(),
    ).meta.pagination.total;
    expect(total).toBe(rows);
  });
});
