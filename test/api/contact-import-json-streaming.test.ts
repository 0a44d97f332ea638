import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { Agent, request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { storedUploadPieces } from "../helpers/import-jobs.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** A CSV of `rows` valid German mobile numbers, written without their +49 (default_country DE). */
function csvOf(rows: number, from = 0): string {
  const lines = ["phone,first_name"];
  for (let i = from; i < from + rows; i++) lines.push(`0151${String(10_000_000 + i)},Name${i}`);
  return `${lines.join("\n")}\n`;
}

const base64 = (text: string) => Buffer.from(text).toString("base64");

/** Temporary files of JSON uploads still on disk. */
const spoolFiles = async () =>
  (await readdir(tmpdir())).filter((name) => name.startsWith("reseller-json-upload-"));

describe("contact imports sent as JSON bodies over 1 MB, read as they stream in", () => {
  let t: TestApp;
  let ws: string;
  let url: string;
  let agent: Agent;
  let spooledBefore: string[];
  beforeEach(async () => {
    agent = new Agent();
    t = await startTestApp();
    ws = await t.createWorkspace({ plan_id: "4" });
    url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    spooledBefore = await spoolFiles();
  });
  afterEach(async () => {
    // Every request's temporary file goes once it has been answered (just after the answer).
    await expect
      .poll(async () => (await spoolFiles()).filter((name) => !spooledBefore.includes(name)))
      .toEqual([]);
    await agent.destroy();
    await t.close();
  });

  const upload = (body: string | Readable, headers: Record<string, string> = {}) =>
    request(`${url}/api/v1/workspaces/${ws}/contacts/import`, {
      method: "POST",
      dispatcher: agent,
      headers: {
        authorization: `Bearer ${t.token}`,
        "content-type": "application/json",
        ...headers,
      },
      body,
    });

  const finished = async (importId: string) => {
    for (let i = 0; i < 200; i++) {
      await t.runJobs();
      const record = ContactImportResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${importId}`)).json(),
      ).data;
      if (record.status === "completed" || record.status === "failed") return record;
    }
    throw new Error("the import did not finish");
  };

  it("imports the file with the options wherever they stand in the body, as a small body would be", async () => {
    const rows = 40_000;
    // The options after the file: they are known only once the body has ended.
    const body = `{"csv":"${base64(csvOf(rows))}","duplicate_handling":"skip","default_country":"DE"}`;
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await upload(body);
    const answer = await res.body.json();
    expect(res.statusCode, JSON.stringify(answer)).toBe(202);
    const queued = ContactImportResponse.parse(answer).data;
    expect(queued).toMatchObject({ total_rows: rows, duplicate_handling: "skip" });
    expect(queued.default_country).toBe("DE");
    const record = await finished(queued.import_id);
    expect(record).toMatchObject({ status: "completed", created: rows, error_count: 0 });
    const found = await t.request(
      "GET",
      `/api/v1/workspaces/${ws}/contacts?search=${encodeURIComponent("+4915110039999")}`,
    );
    expect(found.json().data[0]).toMatchObject({
      phone: "+4915110039999",
      first_name: "Name39999",
    });
  });

  it("reads base64 as JSON encoders write it: escaped slashes, escaped line breaks, \\u escapes", async () => {
    // Names chosen so that the base64 holds many slashes and plus signs.
    const csv = csvOf(30_000).replaceAll("Name", "Ø?>~");
    const text = base64(csv);
    const wrapped = (text.match(/.{1,76}/g) ?? []).join("\n");
    // PHP's json_encode writes every / as \/; others escape letters as \u00XX.
    const escaped = JSON.stringify(wrapped)
      .replaceAll("/", "\\/")
      .replace(/A/g, (letter, at: number) => (at % 7 === 0 ? "\\u0041" : letter));
    expect(escaped).toContain("\\/");
    expect(escaped).toContain("\\u0041");
    expect(escaped).toContain("\\n");
    const res = await upload(`{"default_country":"DE","csv":${escaped}}`);
    const answer = await res.body.json();
    expect(res.statusCode, JSON.stringify(answer)).toBe(202);
    const record = await finished(ContactImportResponse.parse(answer).data.import_id);
    expect(record).toMatchObject({ created: 30_000, error_count: 0 });
    const found = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?per_page=1`);
    expect(found.json().data[0].first_name).toMatch(/^Ø\?>~\d+$/);
  });

  it("replays the first answer for the same body under the same Idempotency-Key, and refuses another file under it", async () => {
    const body = `{"csv":"${base64(csvOf(40_000))}","default_country":"DE"}`;
    const first = await upload(body, { "idempotency-key": "big-json-1" });
    const firstAnswer = await first.body.json();
    expect(first.statusCode).toBe(202);
    const again = await upload(body, { "idempotency-key": "big-json-1" });
    expect(again.statusCode).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await again.body.json()).toEqual(firstAnswer);
    const other = `{"csv":"${base64(csvOf(40_000, 1))}","default_country":"DE"}`;
    const refused = await upload(other, { "idempotency-key": "big-json-1" });
    expect(refused.statusCode).toBe(422);
    expect(await refused.body.json()).toMatchObject({ error_code: "idempotency_key_reused" });
  });

  it("refuses a csv that is not base64 with a 422 naming csv, and keeps none of it", async () => {
    const good = base64(csvOf(40_000));
    const res = await upload(`{"csv":"${good.slice(0, 900_000)}*${good.slice(900_000)}"}`);
    expect(res.statusCode).toBe(422);
    const answer = (await res.body.json()) as { details: unknown };
    expect(answer.details).toEqual([
      { field: "csv", message: "is not base64: send the CSV file's bytes encoded as base64" },
    ]);
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("answers a large body that is not JSON with a 400, one without a csv field with a 413 saying where the file goes, and a file given twice with a 422", async () => {
    const text = base64(csvOf(40_000));
    const broken = await upload(`{"csv":"${text}", "default_country": DE}`);
    expect(broken.statusCode).toBe(400);
    expect(await broken.body.json()).toMatchObject({ error_code: "invalid_json" });
    const cut = await upload(`{"csv":"${text}`);
    expect(cut.statusCode).toBe(400);
    await cut.body.text();
    const misnamed = await upload(`{"file":"${text}"}`);
    expect(misnamed.statusCode).toBe(413);
    expect(await misnamed.body.json()).toMatchObject({
      error_code: "payload_too_large",
      message: expect.stringContaining("must be an object whose csv field holds the file"),
    });
    const twice = await upload(`{"csv":"${text}","csv":"${text}"}`);
    expect(twice.statusCode).toBe(422);
    expect(await twice.body.json()).toMatchObject({ details: [{ field: "csv" }] });
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("removes the decoded file of a client that hangs up before its answer, whatever the answer", async () => {
    const text = base64(csvOf(40_000));
    const bodies = [
      // A bad option: refused before the handler runs.
      `{"csv":"${text}","duplicate_handling":"zz"}`,
      // A good one: the handler reads the file while the client is gone.
      `{"csv":"${text}","default_country":"DE"}`,
    ];
    for (const body of bodies) {
      const { port } = new URL(url);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", resolve));
      const head = [
        `POST /api/v1/workspaces/${ws}/contacts/import HTTP/1.1`,
        "Host: 127.0.0.1",
        `Authorization: Bearer ${t.token}`,
        "Content-Type: application/json",
        `Content-Length: ${Buffer.byteLength(body)}`,
        "",
        "",
      ].join("\r\n");
      // The whole body, then the client's end: the service reads all of it, then finds it gone.
      await new Promise<void>((resolve) => socket.end(head + body, () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
    }
    // afterEach sees that no file is left.
  });

  it("tells a large body the same as a small one: a top-level array, a csv that is no string, a csv given twice", async () => {
    const text = base64(csvOf(40_000));
    const array = await upload(`[{"csv":"${text}"}]`);
    expect(array.statusCode).toBe(422);
    expect(await array.body.json()).toMatchObject({
      details: [{ field: "(body)", message: expect.stringContaining("needs a JSON object") }],
    });
    const object = await upload(`{"csv":{"file":"${text}"}}`);
    expect(object.statusCode).toBe(422);
    expect(await object.body.json()).toMatchObject({
      details: [{ field: "csv", message: "csv must be the CSV file encoded as base64" }],
    });
    for (const second of ["5", "null", '"QQ=="']) {
      const twice = await upload(`{"csv":"${text}","csv":${second}}`);
      expect(twice.statusCode, second).toBe(422);
      expect(await twice.body.json()).toMatchObject({ details: [{ field: "csv" }] });
    }
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("refuses a raw line break inside csv as the JSON error it is, and reads the \\f escape as whitespace, as a small body does", async () => {
    const text = base64(csvOf(40_000));
    const raw = (text.match(/.{1,76}/g) ?? []).join("\n");
    const broken = await upload(`{"csv":"${raw}"}`);
    expect(broken.statusCode).toBe(400);
    expect(await broken.body.json()).toMatchObject({ error_code: "invalid_json" });
    const formFeeds = (text.match(/.{1,76}/g) ?? []).join("\\f");
    const read = await upload(`{"csv":"${formFeeds}","default_country":"DE"}`);
    expect(read.statusCode).toBe(202);
    await read.body.text();
  });

  it("refuses a csv past 100 MB with a 413 as soon as it is past, without waiting for the rest of the body", async () => {
    // 101 MB of CSV in base64, then a body that never ends: a parser that waited for the whole
    // body would never answer.
    const piece = base64(csvOf(50_000)).slice(0, 1_048_576);
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent === 0) this.push('{"csv":"');
        if (sent < 1000) {
          sent++;
          this.push(piece);
        }
      },
    });
    const res = await upload(body);
    expect(res.statusCode).toBe(413);
    expect(await res.body.json()).toMatchObject({
      error_code: "payload_too_large",
      // The limit, said once: where it is refused, the whole file's size is not known.
      message: "The CSV is larger than 100 MB, the most an import takes. Split the file.",
    });
    expect(sent).toBeLessThan(1000);
    body.destroy();
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  }, 60_000);
});
