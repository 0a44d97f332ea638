import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { type Contact, ContactListResponse } from "../../src/contract/contacts.js";
import { storedUploadPieces } from "../helpers/import-jobs.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const fixtures = join(import.meta.dirname, "../fixtures/csv");
const fixture = (name: string) => readFileSync(join(fixtures, name));

const googleMapping = {
  "Phone 1 - Value": "phone",
  "First Name": "first_name",
  "Last Name": "last_name",
  "E-mail 1 - Value": "email",
};

describe("contact imports of CSV files as people have them", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  const path = (rest: string) => `/api/v1/workspaces/${ws}/contacts${rest}`;

  function start(file: Buffer, options: Record<string, unknown> = {}) {
    return t.request("POST", path("/import"), {
      body: { csv: file.toString("base64"), ...options },
    });
  }

  async function imported(file: Buffer, options: Record<string, unknown> = {}) {
    const res = await start(file, options);
    expect(res.statusCode, res.body).toBe(202);
    const id = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    return ContactImportResponse.parse((await t.request("GET", path(`/imports/${id}`))).json())
      .data;
  }

  async function byPhone(phone: string): Promise<Contact | undefined> {
    const res = await t.request("GET", path("?per_page=100"));
    return ContactListResponse.parse(res.json()).data.find((c) => c.phone === phone);
  }

  it("refuses a Google Contacts export without a mapping with a 422 naming the layout and the mapping that works", async () => {
    const res = await start(fixture("google-contacts.csv"));
    expect(res.statusCode).toBe(422);
    const text = res.body;
    expect(text).toContain("Google Contacts export");
    expect(text).toContain("Phone 1 - Value");
    expect(text).toContain("--preset google");
  });

  it("imports a Google Contacts export with its mapping: names, internationalised emails, first of several values", async () => {
    const done = await imported(fixture("google-contacts.csv"), { mapping: googleMapping });
    expect(done).toMatchObject({ status: "completed", created: 3, error_count: 1 });
    expect(done.errors).toEqual([
      { row: 4, phone: null, field: "phone", message: "phone is empty; every row needs a phone" },
    ]);
    expect(done.mapping).toMatchObject({ ...googleMapping, Labels: null, Notes: null });
    expect(done.ignored_columns).toContain("Labels");
    expect(done).toMatchObject({ delimiter: ",", encoding: "utf-8" });
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "Anna",
      last_name: "Schmidt",
      email: "anna.schmidt@example.de",
    });
    expect(await byPhone("+33612345678")).toMatchObject({
      first_name: "Émilie",
      email: "émilie.10@example.com",
    });
    expect(await byPhone("+34612345678")).toMatchObject({ email: "josé@exämple.de" });
  });

  it("imports an Outlook export streamed as text/csv with the mapping in the query, Categories as tags", async () => {
    const mapping = {
      "Mobile Phone": "phone",
      "First Name": "first_name",
      "Last Name": "last_name",
      "E-mail Address": "email",
      Categories: "tags",
    };
    const query = new URLSearchParams({ default_country: "GB", mapping: JSON.stringify(mapping) });
    const res = await t.request("POST", `${path("/import")}?${query}`, {
      headers: { "content-type": "text/csv" },
      body: fixture("outlook-contacts.csv"),
    });
    expect(res.statusCode, res.body).toBe(202);
    const id = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    const done = ContactImportResponse.parse(
      (await t.request("GET", path(`/imports/${id}`))).json(),
    ).data;
    expect(done).toMatchObject({ created: 3, error_count: 0 });
    expect(Object.keys(done.mapping)).toHaveLength(62);
    expect(await byPhone("+447911123456")).toMatchObject({
      last_name: "Brown",
      tags: ["VIP", "Customers"],
    });
    // 447911123458 without +: the calling code of GB, read as international.
    expect(await byPhone("+447911123458")).toMatchObject({ first_name: "Harry" });
    expect(await byPhone("+447911123457")).toMatchObject({ first_name: "Grace" });
  });

  it("imports a HubSpot export and refuses an Italian number that reads two ways as ambiguous_phone", async () => {
    const refused = await start(fixture("hubspot-contacts.csv"), { default_country: "IT" });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("HubSpot");
    // The mapping proposed takes Phone Number; the file may hold the numbers in the other one.
    expect(refused.json().details[0].message).toContain(
      `if the numbers are in 'Mobile Phone Number' instead, map it to phone and 'Phone Number' to null (CLI: --preset hubspot --map "Mobile Phone Number=phone")`,
    );
    const done = await imported(fixture("hubspot-contacts.csv"), {
      default_country: "IT",
      mapping: {
        "Phone Number": "phone",
        "First Name": "first_name",
        "Last Name": "last_name",
        Email: "email",
        "Record ID": "custom.hubspot_record_id",
        "Mobile Phone Number": null,
      },
    });
    expect(done).toMatchObject({ created: 2, error_count: 1 });
    expect(done.errors[0]).toMatchObject({ row: 3, phone: "3902831222", field: "phone" });
    expect(done.errors[0]?.message).toMatch(/^ambiguous_phone: '3902831222' is \+39 02 831222 or/);
    expect(await byPhone("+393331234568")).toMatchObject({ first_name: "Luca" });
    expect(await byPhone("+393331234567")).toMatchObject({
      custom_fields: { hubspot_record_id: "51" },
    });
  });

  it("detects a semicolon separator, reads 4915112347003 with DE as +4915112347003 and yes/FALSE/1 consent", async () => {
    const done = await imported(fixture("semicolon-excel.csv"), { default_country: "DE" });
    expect(done).toMatchObject({ created: 3, error_count: 0, delimiter: ";" });
    expect(await byPhone("+4915112347003")).toMatchObject({
      first_name: "Jürgen",
      tags: ["kunde", "vip"],
      opt_in_status: "opted_in",
    });
    expect(await byPhone("+494915112347003")).toBeUndefined();
    expect(await byPhone("+4915112347004")).toMatchObject({
      last_name: "Martin; Jr.",
      opt_in_status: "not_set",
    });
    expect(await byPhone("+4915112347005")).toMatchObject({ opt_in_status: "opted_in" });
  });

  it("reads the sep=; line Excel writes first as the separator, and imports the rows after it", async () => {
    const file = Buffer.from("sep=;\r\nphone;first_name\r\n+4915112347010;Anna, B\r\n");
    // The sep= line is not a row, from the answer to the upload on.
    const queued = ContactImportResponse.parse((await start(file)).json()).data;
    expect(queued.total_rows).toBe(1);
    await t.runJobs();
    const done = ContactImportResponse.parse(
      (await t.request("GET", path(`/imports/${queued.id}`))).json(),
    ).data;
    expect(done).toMatchObject({ created: 1, error_count: 0, delimiter: ";", total_rows: 1 });
    expect(await byPhone("+4915112347010")).toMatchObject({ first_name: "Anna, B" });
  });

  it("refuses a Windows-1252 file sent as UTF-8 with a 422 that names encoding, and imports it with encoding", async () => {
    const refused = await start(fixture("windows-1252.csv"));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain("windows-1252");
    const done = await imported(fixture("windows-1252.csv"), { encoding: "windows-1252" });
    expect(done).toMatchObject({ created: 3, error_count: 0, encoding: "windows-1252" });
    expect(await byPhone("+4915112347010")).toMatchObject({
      first_name: "Jörg",
      last_name: "Bäcker",
      custom_fields: { city: "München" },
    });
    expect(await byPhone("+34612345610")).toMatchObject({ last_name: "Núñez – €uro" });
  });

  it("takes the encoding's name in any case, or a common alias, and answers with its own name", async () => {
    for (const encoding of ["Windows-1252", "CP1252"]) {
      const done = await imported(fixture("windows-1252.csv"), { encoding });
      expect(done).toMatchObject({ error_count: 0, encoding: "windows-1252" });
    }
    for (const unknown of ["ebcdic", "constructor", "__proto__"]) {
      const refused = await start(fixture("windows-1252.csv"), { encoding: unknown });
      expect(refused.statusCode, unknown).toBe(422);
      expect(refused.json().details).toContainEqual({
        field: "encoding",
        message: expect.stringContaining("encoding must be one of utf-8, windows-1252"),
      });
    }
  });

  it("detects a UTF-16 file by its byte order mark, tab-separated", async () => {
    const done = await imported(fixture("utf16-bom.csv"));
    expect(done).toMatchObject({
      created: 2,
      error_count: 0,
      encoding: "utf-16le",
      delimiter: "\t",
    });
    expect(await byPhone("+81312345678")).toMatchObject({
      first_name: "花子",
      email: "hanako@例え.jp",
    });
    expect(await byPhone("+4915112347020")).toMatchObject({ last_name: "Ørsted" });
  });

  it("refuses bytes that stand for no character in the declared encoding, writing nothing", async () => {
    const cases: Array<[Buffer, Record<string, unknown>, string]> = [
      // 0x81 has no character in windows-1252.
      [
        Buffer.from("phone;first_name\r\n+4915112343101;a\x81b\r\n", "latin1"),
        { encoding: "windows-1252" },
        "is not windows-1252 text: byte 0x81 (byte 35 of the file) stands for no character in windows-1252",
      ],
      // Half a surrogate pair: no character at all.
      [
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from("phone\tfirst_name\r\n+4915112343001\t", "utf16le"),
          Buffer.from([0x3d, 0xd8]),
          Buffer.from("x\r\n", "utf16le"),
        ]),
        {},
        "is not utf-16le text: it holds half a character (a lone UTF-16 surrogate)",
      ],
      // A stray last byte: half a UTF-16 code unit.
      [
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from("phone\r\n+4915112343002\r\n", "utf16le"),
          Buffer.from("A"),
        ]),
        {},
        "is not utf-16le text: it ends with half a character",
      ],
    ];
    for (const [file, options, message] of cases) {
      const refused = await start(file, options);
      expect(refused.statusCode, message).toBe(422);
      expect(refused.json().details).toContainEqual({
        field: "csv",
        message: expect.stringContaining(message),
      });
    }
    const list = await t.request("GET", path("/imports"));
    expect(list.json().data).toEqual([]);
    expect(await storedUploadPieces(t.database.db)).toBe(0);
  });

  it("reads an ISO-8859-1 file as browsers do, 0x80 as € (windows-1252), not a control character", async () => {
    const file = Buffer.from("phone;first_name\r\n+4915112340602;\x80uro \xe9t\xe9\r\n", "latin1");
    const done = await imported(file, { encoding: "iso-8859-1" });
    expect(done).toMatchObject({ created: 1, error_count: 0, encoding: "iso-8859-1" });
    expect(await byPhone("+4915112340602")).toMatchObject({ first_name: "€uro été" });
  });

  it("takes internationalised emails through the contacts API too", async () => {
    const res = await t.request("POST", path(""), {
      body: { phone: "+4915112345699", email: "josé@exämple.de" },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await byPhone("+4915112345699")).toMatchObject({ email: "josé@exämple.de" });
  });

  it("cuts a huge cell to 200 characters in the row error", async () => {
    const huge = "9".repeat(2_000_000);
    const done = await imported(
      Buffer.from(`phone,first_name\n${huge},Anna\n+4915112345678,Ben\n`),
    );
    expect(done).toMatchObject({ created: 1, error_count: 1 });
    expect(done.errors[0]?.phone?.length).toBeLessThanOrEqual(200);
    expect(JSON.stringify(done).length).toBeLessThan(5000);
  });

  it("cuts a huge header name to 200 characters in the record's mapping and ignored columns", async () => {
    const long = "H".repeat(60_000);
    const done = await imported(Buffer.from(`phone,${long}\n+4915112345678,x\n`));
    expect(done).toMatchObject({ status: "completed", created: 1 });
    const [shown] = done.ignored_columns;
    expect(shown).toMatch(/^H{190}…[0-9a-f]{8}$/);
    expect(done.mapping).toEqual({ phone: "phone", [shown ?? ""]: null });
    expect(JSON.stringify(done).length).toBeLessThan(5000);
  });

  it("imports through a mapping that names two long headers beginning alike", async () => {
    const long = "P".repeat(300);
    const done = await imported(
      Buffer.from(`phone,${long}a,${long}b\n+4915112345678,Anna,Berg\n`),
      { mapping: { [`${long}a`]: "first_name", [`${long}b`]: "last_name" } },
    );
    expect(done).toMatchObject({ status: "completed", created: 1, error_count: 0 });
    expect(Object.values(done.mapping)).toEqual(["phone", "first_name", "last_name"]);
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "Anna",
      last_name: "Berg",
    });
  });

  it.each([
    [{ mapping: { Phone: "telephone" } }, "'telephone' is not a field"],
    [{ mapping: { A: "phone", B: "phone" } }, "both 'A' and 'B'"],
    [{ mapping: "phone" }, "mapping"],
    [{ delimiter: "x" }, "delimiter must be one of"],
    [{ encoding: "ebcdic" }, "encoding must be one of"],
    [
      { mapping: { Mobile: "phone" } },
      "the mapping names 'Mobile', which the header does not have",
    ],
  ])("refuses %j with a 422 that says what is wrong", async (options, words) => {
    const res = await start(Buffer.from("phone,name\n+4915112345678,Anna\n"), options);
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(words);
  });

  it("takes the ' an export puts before a formula off again, and keeps +49… a phone", async () => {
    const csv = [
      "phone,first_name,last_name,custom.note",
      `+4915112345678,'=cmd|' /C calc'!A0,'@SUM(A1),'-2+3`,
      "'+4915112345679,Ben,'plain,x",
    ].join("\n");
    const done = await imported(Buffer.from(csv));
    expect(done).toMatchObject({ created: 2, error_count: 0 });
    expect(await byPhone("+4915112345678")).toMatchObject({
      first_name: "=cmd|' /C calc'!A0",
      last_name: "@SUM(A1)",
      custom_fields: { note: "-2+3" },
    });
    expect(await byPhone("+4915112345679")).toMatchObject({ last_name: "'plain" });
  });
});
