import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ContactImportResponse,
  ImportErrorListResponse,
} from "../../src/contract/contact-imports.js";
import { ContactListResponse } from "../../src/contract/contacts.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * Text no database stores as sent (U+0000, half of a surrogate pair) is refused where it comes
 * in, the same on SQLite and PostgreSQL: PostgreSQL cannot store it at all, and SQLite kept
 * something else than was sent.
 */
describe("text that cannot be stored", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  it("refuses a NUL character in a body field with a 422 naming the field, and stores nothing", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "nul\u0000byte", contact_email: "a@example.com" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      error_code: "validation_failed",
      details: [
        {
          field: "name",
          message: "name contains the NUL character (U+0000), which is not text",
        },
      ],
    });
    const listed = (await t.request("GET", "/api/v1/workspaces")).json().data;
    expect(listed.map((w: { name: string }) => w.name)).not.toContain("nul\u0000byte");
    const upsert = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: "+4915112350091", custom_fields: { city: "a\u0000b" } },
    });
    expect(upsert.statusCode).toBe(422);
    expect(upsert.json().details).toEqual([
      { field: "custom_fields.city", message: expect.stringMatching(/^city contains the NUL/) },
    ]);
    const list = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts`)).json(),
    );
    expect(list.data).toEqual([]);
  });

  it("names each text that cannot be stored once, beside every other problem of the body", async () => {
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: {
        phone: "+4915112350091",
        first_name: "a\u0000",
        last_name: "b\u0000",
        email: "not-an-address",
        tags: ["vip\u0000"],
        custom_fields: { city: "c\u0000", "k\u0000": "v" },
      },
    });
    expect(res.statusCode).toBe(422);
    const details: { field: string; message: string }[] = res.json().details;
    expect(details.map((d) => d.field).sort()).toEqual([
      "custom_fields.city",
      "custom_fields.k\ufffd",
      "email",
      "first_name",
      "last_name",
      "tags",
    ]);
    // The answer quotes the refused text with U+FFFD where the bad character was.
    expect(res.body).not.toContain("\\u0000");
    expect(details.find((d) => d.field === "tags")?.message).toContain("vip\ufffd");
  });

  it("names an unknown field whose name holds a NUL once, shown with U+FFFD", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Shop", contact_email: "a@example.com", "x\u0000": 1 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "x\ufffd", message: expect.stringContaining("NUL character") },
    ]);
  });

  it("answers a body nested 100,000 lists deep holding a hundred NULs with one short 422", async () => {
    const depth = 100_000;
    const nuls = Array.from({ length: 100 }, () => '"\\u0000"').join(",");
    const payload = `{"name":"Shop","contact_email":"a@example.com","x":${"[".repeat(depth)}${nuls}${"]".repeat(depth)}}`;
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: payload,
      headers: { "content-type": "application/json" },
    });
    expect(res.statusCode).toBe(422);
    const details: { field: string; message: string }[] = res.json().details;
    // The field's name says where in short: its key and the last places of the lists.
    for (const detail of details) expect(detail.message.length).toBeLessThan(200);
    expect(details).toContainEqual({ field: "x", message: "is not a field this endpoint accepts" });
  });

  it("names a cut emoji in one tag beside another tag's problem", async () => {
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: "+4915112350091", tags: ["a\ud800", "b,c"] },
    });
    expect(res.statusCode).toBe(422);
    const messages = res.json().details.map((d: { message: string }) => d.message);
    expect(messages).toEqual([
      expect.stringContaining("half of a surrogate pair"),
      expect.stringContaining("must not contain , ; or |"),
    ]);
  });

  it("still names an unknown field whose value holds a NUL as unknown", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Shop", contact_email: "a@example.com", extra: "a\u0000" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual(
      expect.arrayContaining([
        { field: "extra", message: expect.stringContaining("NUL character") },
        {
          field: "extra",
          message: expect.stringContaining("is not a field this endpoint accepts"),
        },
      ]),
    );
  });

  it("names a NUL in the query beside the query's other problems", async () => {
    const res = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?search=%00&per_page=0`);
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(["per_page", "search"]);
  });

  it("refuses half of a surrogate pair (a cut emoji) with a 422, and takes whole emoji", async () => {
    const cut = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: "+4915112350091", first_name: "bad\ud800x" },
    });
    expect(cut.statusCode).toBe(422);
    expect(cut.json().details).toEqual([
      { field: "first_name", message: expect.stringContaining("half of a surrogate pair") },
    ]);
    const whole = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: "+4915112350091", first_name: "Anna 😀" },
    });
    expect(whole.statusCode).toBe(201);
    expect(whole.json().data.first_name).toBe("Anna 😀");
  });

  it("refuses a NUL character in the query with a 422 naming the parameter; in the path, no such id (404)", async () => {
    const query = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?tag=a%00b`);
    expect(query.statusCode).toBe(422);
    expect(query.json().details).toEqual([
      { field: "tag", message: expect.stringContaining("NUL character") },
    ]);
    // A parameter the list does not know is ignored, whatever it holds.
    const unknown = await t.request("GET", "/api/v1/workspaces?search=%00");
    expect(unknown.statusCode).toBe(200);
    const path = await t.request("GET", "/api/v1/workspaces/ws_%00");
    expect(path.statusCode).toBe(404);
    expect(path.json().error_code).toBe("not_found");
  });

  it("imports a CSV whose cell holds a NUL character: that row is a row error, the others import", async () => {
    const csv = "phone,first_name\n+4915112350091,a\u0000b\n+4915112350089,fine row\n";
    const started = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: Buffer.from(csv).toString("base64") },
    });
    expect(started.statusCode).toBe(202);
    const id = ContactImportResponse.parse(started.json()).data.id;
    await t.runJobs();
    const done = ContactImportResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${id}`)).json(),
    ).data;
    expect(done).toMatchObject({ status: "completed", created: 1, error_count: 1 });
    const errors = ImportErrorListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${id}/errors`)).json(),
    ).data;
    expect(errors).toEqual([
      {
        row: 1,
        phone: "+4915112350091",
        field: "first_name",
        message: "first_name contains the NUL character (U+0000), which is not text",
      },
    ]);
  });
});
