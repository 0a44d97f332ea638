import { Readable } from "node:stream";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { ContactListResponse } from "../../src/contract/contacts.js";
import { storedUploadPieces } from "../helpers/import-jobs.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** A CSV of `rows` valid German mobile numbers, made as it is read (never whole in memory). */
function csvStream(rows: number, padding = ""): Readable {
  let i = 0;
  return Readable.from(
    (function* () {
      yield "phone,first_name,custom.note\n";
      while (i < rows) {
        const lines: string[] = [];
        for (let n = 0; n < 1000 && i < rows; n++, i++) {
          lines.push(`+49151${String(10_000_000 + i)},Name${i},${padding}`);
        }
        yield `${lines.join("\n")}\n`;
      }
    })(),
  );
}

describe("contact imports streamed as text/csv", () => {
  let t: TestApp;
  let ws: string;
  let url: string;
  let agent: Agent;
  beforeEach(async () => {
    agent = new Agent();
    t = await startTestApp();
    ws = await t.createWorkspace();
    url = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(async () => {
    await agent.destroy();
    await t.close();
  });

  const upload = (body: Readable | string | Buffer, query = "") =>
    request(`${url}/api/v1/workspaces/${ws}/contacts/import${query}`, {
      method: "POST",
      dispatcher: agent,
      headers: { authorization: `Bearer ${t.token}`, "content-type": "text/csv" },
      body,
    });

  it("takes the file itself as the body, with the options in the query", async () => {
    const res = await upload(
      "phone,first_name\n0151 12345678,Anna\n",
      "?duplicate_handling=skip&default_country=DE",
    );
    expect(res.statusCode).toBe(202);
    const queued = ContactImportResponse.parse(await res.body.json()).data;
    expect(queued).toMatchObject({
      status: "queued",
      total_rows: 1,
      duplicate_handling: "skip",
      default_country: "DE",
    });
    await t.runJobs();
    const contacts = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts`)).json(),
    );
    expect(contacts.data.map((c) => c.phone)).toEqual(["+4915112345678"]);
  });

  it("gives the service's checkpoints back once the import of a file over 1 MB has started", async () => {
    // Its pieces were left in SQLite's log for the import to copy back (PostgreSQL has none).
    const sqlite = t.database.sqlite;
    if (!sqlite) return;
    const setting = () => sqlite.pragma("wal_autocheckpoint", { simple: true });
    const before = setting();
    const res = await upload(csvStream(60_000));
    expect(res.statusCode).toBe(202);
    const queued = ContactImportResponse.parse(await res.body.json()).data;
    expect(queued.total_rows).toBe(60_000);
    expect(setting()).not.toBe(before);
    await t.runJobs();
    expect(setting()).toBe(before);
  });

  it("reads the file in the encoding its Content-Type's charset names, as an encoding option would", async () => {
    const latin1 = Buffer.from("phone,first_name\n+4915112345678,J\u00fcrgen\n", "latin1");
    const res = await request(`${url}/api/v1/workspaces/${ws}/contacts/import`, {
      method: "POST",
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${t.token}`,
        "content-type": "text/csv; charset=windows-1252",
      },
      body: latin1,
    });
    expect(res.statusCode).toBe(202);
    expect(ContactImportResponse.parse(await res.body.json()).data.encoding).toBe("windows-1252");
    await t.runJobs();
    const contacts = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts`)).json(),
    );
    expect(contacts.data.map((c) => c.first_name)).toEqual(["Jürgen"]);
  });

  it("refuses a bad option, a file without a phone column and a file that is not UTF-8 with a 422", async () => {
    const option = await upload("phone\n+4915112345678\n", "?duplicate_handling=merge");
    expect(option.statusCode).toBe(422);
    expect(await option.body.text()).toContain("duplicate_handling");
    const header = await upload("name\nAnna\n");
    expect(header.statusCode).toBe(422);
    expect(await header.body.text()).toContain("'phone' column");
    const latin1 = await upload(
      Buffer.from("phone,first_name\n+4915112345678,J\xfcrgen\n", "latin1"),
    );
    expect(latin1.statusCode).toBe(422);
    expect(await latin1.body.text()).toContain("UTF-8");
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("refuses a file whose quote opens and never closes, naming its row, and writes nothing", async () => {
    // csv-parse would read everything after the quote as one cell: the import would end early.
    const rows = Array.from({ length: 3000 }, (_, i) => `+49151${10_000_000 + i},Name${i}`);
    rows[2000] = `+4915112002000,"Name opened`;
    const res = await upload(`phone,first_name\n${rows.join("\n")}\n`);
    expect(res.statusCode).toBe(422);
    const body = (await res.body.json()) as { details: { field: string; message: string }[] };
    expect(body.details).toEqual([
      {
        field: "csv",
        message: expect.stringContaining(
          "row 2,001 opens a quoted cell that is never closed, so the rest of the file would be read as that one cell",
        ),
      },
    ]);
    expect(await storedUploadPieces(t.database.db)).toBe(0);
    expect(await t.database.db.selectFrom("contact_imports").selectAll().execute()).toEqual([]);
  });

  it("refuses a file whose stray quote a later quote closes mid-cell, naming its row, and writes nothing", async () => {
    const res = await upload(
      'phone,first_name\n+4915112340201,Ann\n+4915112340202,"Bob,Two\n+4915112340203,Cid\n+4915112340204,12" pizza\n',
    );
    expect(res.statusCode).toBe(422);
    expect(await res.body.text()).toContain(
      "row 2 opens a quoted cell that runs over several lines",
    );
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("counts rows as the import reads them: a quote inside a cell is text", async () => {
    const res = await upload('phone,first_name\n+4915112345678,12" pizza\n+4915112345679,B\n');
    expect(res.statusCode).toBe(202);
    expect(ContactImportResponse.parse(await res.body.json()).data.total_rows).toBe(2);
  });

  it("says a workbook or a PDF is not a CSV file, and how to make one", async () => {
    const workbook = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0xff, 0xfe]),
      Buffer.from("xl/workbook.xml"),
    ]);
    const xlsx = await upload(workbook);
    expect(xlsx.statusCode).toBe(422);
    expect(await xlsx.body.text()).toContain("is a ZIP archive (an Excel .xlsx");
    // Told by the bytes as sent, whatever encoding the request names.
    const xls = await upload(
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00, 0x00]),
      "?encoding=windows-1252",
    );
    expect(xls.statusCode).toBe(422);
    expect(await xls.body.text()).toContain("is an old Office file (an Excel .xls workbook?)");
    const pdf = await upload(Buffer.from("%PDF-1.4\nphone\n"));
    expect(pdf.statusCode).toBe(422);
    expect(await pdf.body.text()).toContain(
      'is a PDF document, not a CSV file: open it and save it as \\"CSV UTF-8\\"',
    );
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("says so when a UTF-8 byte order mark overrides the encoding given", async () => {
    const marked = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("phone,first_name\n+4915112345678,J\xfcrgen\n", "latin1"),
    ]);
    const res = await upload(marked, "?encoding=windows-1252");
    expect(res.statusCode).toBe(422);
    expect(await res.body.text()).toContain("starts with a UTF-8 byte order mark but is not UTF-8");
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("answers other requests in time while a 100 MB file uploads", async () => {
    // ~100 MB: 400,000 rows of ~250 bytes.
    const rows = 400_000;
    const uploading = upload(csvStream(rows, "x".repeat(220)));
    const latencies: number[] = [];
    let done = false;
    const polling = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await request(`${url}/api/v1/plans`, {
          dispatcher: agent,
          headers: { authorization: `Bearer ${t.token}` },
        });
        await res.body.text();
        expect(res.statusCode).toBe(200);
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const res = await uploading;
    done = true;
    await polling;
    const body = await res.body.json();
    expect(res.statusCode, JSON.stringify(body)).toBe(202);
    expect(ContactImportResponse.parse(body).data.total_rows).toBe(rows);
    expect(latencies.length).toBeGreaterThan(10);
    // Generous for a busy shared machine, where one collector pause or stall may hit any single
    // request; parsing the whole body at once blocked every request for about ten seconds.
    const sorted = [...latencies].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.95)]).toBeLessThan(1000);
    expect(sorted.at(-1)).toBeLessThan(3000);
  }, 120_000);

  it("refuses a file whose declared length is over 100 MB with a 413 before reading any of it", async () => {
    const started = performance.now();
    // The body never comes: the answer must not wait for it.
    const body = new Readable({ read() {} });
    body.push("phone\n+4915112345678\n");
    const res = await request(`${url}/api/v1/workspaces/${ws}/contacts/import`, {
      method: "POST",
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${t.token}`,
        "content-type": "text/csv",
        "content-length": String(200 * 1024 * 1024),
      },
      body,
    });
    expect(res.statusCode).toBe(413);
    expect(await res.body.json()).toMatchObject({ error_code: "payload_too_large" });
    expect(performance.now() - started).toBeLessThan(10_000);
    body.destroy();
  });

  it("refuses a file over 100 MB with a 413 and keeps none of it", async () => {
    const res = await upload(csvStream(460_000, "x".repeat(220)));
    expect(res.statusCode).toBe(413);
    await res.body.text();
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  }, 120_000);
});
