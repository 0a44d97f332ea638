import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { ContactListResponse, ContactResponse } from "../../src/contract/contacts.js";
import { searchCountBound } from "../../src/service/domain/contact-listing.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const anna = "+4915112345678";
const ben = "+4915223456789";
const carl = "+14155550123";

describe("contact search as people type it", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
    const upsert = (body: Record<string, unknown>) =>
      t.request("POST", `/api/v1/workspaces/${ws}/contacts`, { body });
    await upsert({ phone: anna, first_name: "Søren", last_name: "Ørsted", tags: ["gold"] });
    await upsert({ phone: ben, first_name: "Łukasz", last_name: "Weiß", tags: ["Été"] });
    await upsert({ phone: carl, first_name: "Carl", tags: ["Silver"] });
  });
  afterEach(() => t.close());

  async function found(query: string): Promise<string[]> {
    const res = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?${query}`);
    expect(res.statusCode).toBe(200);
    return ContactListResponse.parse(res.json()).data.map((c) => c.phone);
  }
  const search = (text: string) => found(`search=${encodeURIComponent(text)}`);

  it("finds a contact by the last digits of the phone", async () => {
    expect(await search("12345678")).toEqual([anna]);
    expect(await search("5550123")).toEqual([carl]);
  });

  it("finds a contact by the phone's national form, with or without the trunk 0", async () => {
    expect(await search("0151 1234")).toEqual([anna]);
    expect(await search("0152-234")).toEqual([ben]);
    expect(await search("(415) 555")).toEqual([carl]);
    expect(await search("004915112")).toEqual([anna]);
  });

  it("still reads a leading + as the international form only", async () => {
    expect(await search("+4915")).toEqual([ben, anna]);
    expect(await search("+12345678")).toEqual([]);
  });

  it("finds an address typed up to its @ without the longer names that start the same", async () => {
    const upsert = (phone: string, email: string) =>
      t.request("POST", `/api/v1/workspaces/${ws}/contacts`, { body: { phone, email } });
    await upsert("+4915112398001", "adam@example.com");
    await upsert("+4915112398002", "ada@example.com");
    await upsert("+4915112398003", "anna.schmidt@example.de");
    await upsert("+4915112398004", "anna.schmidtke@example.de");
    expect(await search("ada@")).toEqual(["+4915112398002"]);
    expect(await search("ADA@ex")).toEqual(["+4915112398002"]);
    expect(await search("ada")).toHaveLength(2);
    expect(await search("anna.schmidt@")).toEqual(["+4915112398003"]);
    expect(await search("anna.schmidt")).toHaveLength(2);
  });

  it("folds ø, ß and ł to their plain forms, in the index and in the search", async () => {
    expect(await search("orsted")).toEqual([anna]);
    expect(await search("ørsted")).toEqual([anna]);
    expect(await search("soren")).toEqual([anna]);
    expect(await search("weiss")).toEqual([ben]);
    expect(await search("weiß")).toEqual([ben]);
    expect(await search("lukasz weiss")).toEqual([ben]);
  });

  it("matches tags whatever their case, accented letters included, on both engines", async () => {
    expect(await found("tag=GOLD")).toEqual([anna]);
    expect(await found("tag=silver")).toEqual([carl]);
    expect(await found(`tag=${encodeURIComponent("ÉTÉ")}`)).toEqual([ben]);
    expect(await found(`tag=${encodeURIComponent("été")}`)).toEqual([ben]);
    expect(await found(`tag=${encodeURIComponent("ete")}`)).toEqual([]);
    // A tag written by the release before the folded names (a rolling upgrade) is still found.
    await sql`UPDATE contact_tags SET folded_name = '' WHERE name = 'Silver'`.execute(
      t.database.db,
    );
    expect(await found("tag=SILVER")).toEqual([carl]);
  });
});

describe("search totals", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  it("counts matches up to the bound and then says the total is a lower bound", async () => {
    const rows = searchCountBound + 50;
    const lines = ["phone,first_name"];
    for (let i = 0; i < rows; i++) lines.push(`+49151${String(10_000_000 + i)},Anna`);
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: Buffer.from(lines.join("\n")).toString("base64") },
    });
    const id = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    const done = await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${id}`);
    expect(ContactImportResponse.parse(done.json()).data.created).toBe(rows);

    const broad = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts?search=ann&per_page=100`)).json(),
    );
    expect(broad.meta.pagination).toMatchObject({
      total: searchCountBound,
      total_is_lower_bound: true,
      total_pages: searchCountBound / 100,
    });
    expect(broad.meta.pagination.next_cursor).not.toBeNull();

    const narrow = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts?search=4915110000001`)).json(),
    );
    expect(narrow.meta.pagination).toMatchObject({ total: 1, total_is_lower_bound: false });

    // The last page knows every match: a walk by cursor ends with the exact total.
    let pagination = broad.meta.pagination;
    let walked = broad.data.length;
    while (pagination.next_cursor) {
      const next = ContactListResponse.parse(
        (
          await t.request(
            "GET",
            `/api/v1/workspaces/${ws}/contacts?search=ann&per_page=100&cursor=${pagination.next_cursor}`,
          )
        ).json(),
      );
      walked += next.data.length;
      pagination = next.meta.pagination;
      expect(pagination.page).toBeLessThanOrEqual(pagination.total_pages);
    }
    expect(walked).toBe(rows);
    expect(pagination).toMatchObject({
      page: 11,
      total: rows,
      total_is_lower_bound: false,
      total_pages: 11,
    });
    // A walk that changes per_page on the way ends exact too.
    let cursor = broad.meta.pagination.next_cursor;
    let changed = broad.data.length;
    let end = broad.meta.pagination;
    while (cursor) {
      const next = ContactListResponse.parse(
        (
          await t.request(
            "GET",
            `/api/v1/workspaces/${ws}/contacts?search=ann&per_page=30&cursor=${cursor}`,
          )
        ).json(),
      );
      changed += next.data.length;
      end = next.meta.pagination;
      cursor = end.next_cursor;
    }
    expect(changed).toBe(rows);
    expect(end).toMatchObject({ total: rows, total_is_lower_bound: false });
    // So does the last page by number; a page past it shows nothing and tells nothing.
    const last = await t.request(
      "GET",
      `/api/v1/workspaces/${ws}/contacts?search=ann&per_page=100&page=11`,
    );
    expect(ContactListResponse.parse(last.json()).meta.pagination).toMatchObject({
      total: rows,
      total_is_lower_bound: false,
    });
    const past = await t.request(
      "GET",
      `/api/v1/workspaces/${ws}/contacts?search=ann&per_page=100&page=12`,
    );
    expect(ContactListResponse.parse(past.json()).meta.pagination).toMatchObject({
      total: searchCountBound,
      total_is_lower_bound: true,
    });
  });

  it("pages a search within a tag by cursor to the end, each match once", async () => {
    const lines = ["phone,first_name,tags"];
    for (let i = 0; i < 120; i++)
      lines.push(
        `+49151${String(20_000_000 + i)},${i % 2 ? "Anna" : "Berta"},${i % 3 ? "vip" : "lead"}`,
      );
    await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: Buffer.from(lines.join("\n")).toString("base64") },
    });
    await t.runJobs();
    const phones: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const res = await t.request(
        "GET",
        `/api/v1/workspaces/${ws}/contacts?search=anna&tag=vip&per_page=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      const page = ContactListResponse.parse(res.json());
      phones.push(...page.data.map((c) => c.phone));
      cursor = page.meta.pagination.next_cursor;
    }
    const expected = [];
    for (let i = 119; i >= 0; i--)
      if (i % 2 && i % 3) expected.push(`+49151${String(20_000_000 + i)}`);
    expect(phones).toEqual(expected);
  });

  it("says a search's total is exact when the search has nothing to look for", async () => {
    const res = await t.request(
      "GET",
      `/api/v1/workspaces/${ws}/contacts?search=${encodeURIComponent("*")}`,
    );
    expect(ContactListResponse.parse(res.json()).meta.pagination).toMatchObject({
      total: 0,
      total_is_lower_bound: false,
    });
  });

  it("counts a one-letter search narrowed by status or tag among the contacts that pass", async () => {
    const upsert = (body: Record<string, unknown>) =>
      t.request("POST", `/api/v1/workspaces/${ws}/contacts`, { body });
    await upsert({ phone: anna, first_name: "Anna", opt_in_status: "opted_in" });
    await upsert({ phone: ben, first_name: "Anton", tags: ["gold"] });
    await upsert({ phone: carl, first_name: "Carl", opt_in_status: "opted_in" });
    const page = async (query: string) =>
      ContactListResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${ws}/contacts?${query}`)).json(),
      );

    const all = await page("search=a&per_page=1");
    expect(all.data.map((c) => c.phone)).toEqual([ben]);
    expect(all.meta.pagination).toMatchObject({ total: 2, total_is_lower_bound: false });
    const next = await page(`search=a&per_page=1&cursor=${all.meta.pagination.next_cursor}`);
    expect(next.data.map((c) => c.phone)).toEqual([anna]);
    expect(next.meta.pagination.next_cursor).toBeNull();

    const optedIn = await page("search=a&opt_in_status=opted_in");
    expect(optedIn.data.map((c) => c.phone)).toEqual([anna]);
    expect(optedIn.meta.pagination.total).toBe(1);
    const gold = await page("search=a&tag=gold");
    expect(gold.data.map((c) => c.phone)).toEqual([ben]);
    expect(gold.meta.pagination.total).toBe(1);
  });
});

describe("consent: an opt-out stands until the contact or a sourced change undoes it", () => {
  let t: TestApp;
  let ws: string;
  let id: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
    const created = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: anna, first_name: "Anna", opt_in_status: "opted_in" },
    });
    id = ContactResponse.parse(created.json()).data.id;
    await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "opted_out" },
    });
  });
  afterEach(() => t.close());

  /** Imports a CSV into the workspace and answers the finished import's record. */
  const importCsv = async (csv: string) => {
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: Buffer.from(csv).toString("base64") },
    });
    const importId = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    return ContactImportResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${importId}`)).json(),
    ).data;
  };

  it("an upsert saying opted_in leaves the contact opted out and says so", async () => {
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: anna, first_name: "Anna Maria", opt_in_status: "opted_in" },
    });
    expect(res.statusCode).toBe(200);
    const body = ContactResponse.parse(res.json());
    expect(body.data).toMatchObject({ first_name: "Anna Maria", opt_in_status: "opted_out" });
    expect(body.meta.notices).toEqual([
      { field: "opt_in_status", message: expect.stringContaining("stays opted out") },
    ]);
  });

  it("an import row saying opted_in leaves the contact opted out and the import counts it", async () => {
    const csv = `phone,first_name,opt_in_status\n${anna},Anna,opted_in\n${ben},Ben,opted_in\n`;
    const record = await importCsv(csv);
    expect(record).toMatchObject({ created: 1, updated: 1, opt_outs_kept: 1, error_count: 0 });
    const contact = ContactResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/${id}`)).json(),
    ).data;
    expect(contact.opt_in_status).toBe("opted_out");
  });

  it("an upsert saying not_set leaves the contact opted out, so a later opted_in cannot re-subscribe", async () => {
    for (const status of ["not_set", "opted_in"]) {
      const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
        body: { phone: anna, opt_in_status: status },
      });
      expect(res.statusCode).toBe(200);
      const body = ContactResponse.parse(res.json());
      expect(body.data.opt_in_status).toBe("opted_out");
      expect(body.meta.notices).toEqual([
        { field: "opt_in_status", message: expect.stringContaining("stays opted out") },
      ]);
    }
  });

  it("two imports, not_set then opted_in, leave the contact opted out and count both rows", async () => {
    let kept = 0;
    for (const status of ["not_set", "opted_in"]) {
      const csv = `phone,opt_in_status\n${anna},${status}\n`;
      const record = await importCsv(csv);
      kept += record.opt_outs_kept;
    }
    expect(kept).toBe(2);
    const contact = ContactResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts/${id}`)).json(),
    ).data;
    expect(contact.opt_in_status).toBe("opted_out");
  });

  it("a PATCH giving not_set moves a contact who opted out to not_set, and upserts still cannot re-subscribe them", async () => {
    const moved = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "not_set" },
    });
    expect(moved.statusCode).toBe(200);
    const contact = ContactResponse.parse(moved.json()).data;
    expect(contact.opt_in_status).toBe("not_set");
    expect(contact.opted_out_at).not.toBeNull();

    const upsert = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: anna, opt_in_status: "opted_in" },
    });
    expect(upsert.statusCode).toBe(200);
    const body = ContactResponse.parse(upsert.json());
    expect(body.data.opt_in_status).toBe("not_set");
    expect(body.meta.notices).toEqual([
      { field: "opt_in_status", message: expect.stringContaining("does not re-subscribe") },
    ]);

    const csv = `phone,opt_in_status\n${anna},opted_in\n`;
    const record = await importCsv(csv);
    expect(record).toMatchObject({ updated: 1, opt_outs_kept: 1 });

    const bare = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "opted_in" },
    });
    expect(bare.statusCode).toBe(422);
    expect(bare.json().details).toEqual([expect.objectContaining({ field: "opt_in_source" })]);
    const sourced = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "opted_in", opt_in_source: "signed form" },
    });
    expect(sourced.json().data.opt_in_status).toBe("opted_in");
  });

  it("no change of times makes a contact moved from opted out to not_set re-subscribable", async () => {
    const path = `/api/v1/workspaces/${ws}/contacts/${id}`;
    expect(
      (await t.request("PATCH", path, { body: { opt_in_status: "not_set" } })).statusCode,
    ).toBe(200);
    const later = "2026-11-22T09:40:00Z";
    const withTime = await t.request("PATCH", path, {
      body: { opt_in_status: "not_set", opted_in_at: later },
    });
    expect(withTime.statusCode).toBe(422);
    expect(withTime.json().details[0].field).toBe("opted_in_at");
    const earlierOptOut = await t.request("PATCH", path, {
      body: { opted_out_at: "2024-01-01T00:00:00Z" },
    });
    expect(earlierOptOut.statusCode).toBe(422);
    expect(earlierOptOut.json().details[0].field).toBe("opted_out_at");
    // An import row moving the opt-out before the opt-in is that row's error.
    const record = await importCsv(`phone,opted_out_at\n${anna},2024-01-01T00:00:00Z\n`);
    expect(record).toMatchObject({ error_count: 1, updated: 0 });
    expect(record.errors[0]).toMatchObject({ field: "opted_out_at" });

    const upsert = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: { phone: anna, opt_in_status: "opted_in" },
    });
    expect(ContactResponse.parse(upsert.json()).data.opt_in_status).toBe("not_set");
  });

  it("a PATCH re-subscribes only with an opt_in_source", async () => {
    const bare = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "opted_in" },
    });
    expect(bare.statusCode).toBe(422);
    expect(bare.body).toContain("opt_in_source");
    // A source that says nothing is no source.
    for (const opt_in_source of ["", "   ", null]) {
      const blank = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
        body: { opt_in_status: "opted_in", opt_in_source },
      });
      expect(blank.statusCode, JSON.stringify(opt_in_source)).toBe(422);
      expect(blank.json().details).toEqual([expect.objectContaining({ field: "opt_in_source" })]);
    }
    const still = await t.request("GET", `/api/v1/workspaces/${ws}/contacts/${id}`);
    expect(still.json().data.opt_in_status).toBe("opted_out");
    const sourced = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { opt_in_status: "opted_in", opt_in_source: "signed form 2026-11-22" },
    });
    expect(sourced.statusCode).toBe(200);
    expect(ContactResponse.parse(sourced.json()).data).toMatchObject({
      opt_in_status: "opted_in",
      opt_in_source: "signed form 2026-11-22",
    });
  });
});
