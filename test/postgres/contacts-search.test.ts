import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactListResponse, ContactResponse } from "../../src/contract/contacts.js";
import {
  foldDiacritics,
  searchDocument,
} from "../../src/service/db/contact-rows/contact-search.js";
import { searchCountBound } from "../../src/service/domain/contact-listing.js";
import { ContactWriter } from "../../src/service/domain/contact-store.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * What only PostgreSQL needs checked: its search entry is a tsvector written by the contact
 * writer (not an FTS5 index), its queries are tsquery text, and its writers really run at once.
 */
describe("contacts on PostgreSQL", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  const upsert = (body: Record<string, unknown>) =>
    t.request("POST", `/api/v1/workspaces/${ws}/contacts`, { body });

  async function storedTerms(phone: string): Promise<string[]> {
    const { rows } = await sql<{ terms: string[] }>`SELECT tsvector_to_array(search_terms) AS terms
      FROM contacts WHERE workspace_id = ${ws} AND phone = ${phone}`.execute(t.database.db);
    return [...(rows[0]?.terms ?? [])].sort();
  }

  function expectedTerms(contact: {
    phone: string;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
  }): string[] {
    const doc = searchDocument({ workspace_id: ws, ...contact });
    const terms = foldDiacritics(`${doc.name} ${doc.phone} ${doc.email}`)
      .split(" ")
      .filter((term) => term !== "");
    return [...new Set(terms)].sort();
  }

  it("stores exactly the search terms SQLite's index holds, and rewrites them on a change", async () => {
    const created = await upsert({
      phone: "+4915112345678",
      first_name: "Anna-Lena",
      last_name: "Müller",
      email: "anna.mueller@example.com",
    });
    expect(created.statusCode).toBe(201);
    expect(await storedTerms("+4915112345678")).toEqual(
      expectedTerms({
        phone: "+4915112345678",
        first_name: "Anna-Lena",
        last_name: "Müller",
        email: "anna.mueller@example.com",
      }),
    );
    const id = ContactResponse.parse(created.json()).data.id;
    const changed = await t.request("PATCH", `/api/v1/workspaces/${ws}/contacts/${id}`, {
      body: { first_name: "Zoë", email: null },
    });
    expect(changed.statusCode).toBe(200);
    expect(await storedTerms("+4915112345678")).toEqual(
      expectedTerms({
        phone: "+4915112345678",
        first_name: "Zoë",
        last_name: "Müller",
        email: null,
      }),
    );
  });

  it("answers any search text, quotes, backslashes and tsquery operators included, without an error", async () => {
    await upsert({ phone: "+4915112345678", first_name: "O'Brien", last_name: "Back\\slash" });
    const texts = [
      "'",
      "''",
      "\\",
      "\\'",
      "o'brien",
      "back\\slash",
      "a & b",
      "!anna | :*",
      "(((",
      "<->",
      "a:*B",
      "ü'ö",
      '"quoted"',
    ];
    for (const text of texts) {
      const res = await t.request(
        "GET",
        `/api/v1/workspaces/${ws}/contacts?search=${encodeURIComponent(text)}`,
      );
      expect(res.statusCode, text).toBe(200);
    }
    const found = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?search=o'brien`);
    expect(ContactListResponse.parse(found.json()).data.map((c) => c.phone)).toEqual([
      "+4915112345678",
    ]);
  });

  it("counts a search the same whether its matches are among the newest contacts or older", async () => {
    // 1,050 Annas, then 10,000 newer contacts: Ben, every fourth Clara, and 154 Evas among the
    // newest 2,000. Written as an import writes them: through the API they would take minutes.
    const old = searchCountBound + 50;
    const nameOf = (i: number) => {
      if (i < old) return "Anna";
      const j = i - old;
      if (j >= 8_000 && j % 13 === 0) return "Eva";
      return j % 4 === 0 ? "Clara" : "Ben";
    };
    const phoneOf = (i: number) => `+49151${10_000_000 + i}`;
    for (let start = 0; start < old + 10_000; start += 500) {
      await t.database.db.transaction().execute(async (trx) => {
        const writer = new ContactWriter(trx, ws);
        for (let i = start; i < Math.min(old + 10_000, start + 500); i++) {
          writer.create(
            phoneOf(i),
            { first_name: nameOf(i) },
            { now: "2026-11-23T09:00:00Z", source: "test" },
          );
        }
        await writer.flush();
      });
    }
    const page = async (query: string) => {
      const res = await t.request("GET", `/api/v1/workspaces/${ws}/contacts?${query}`);
      expect(res.statusCode, query).toBe(200);
      return ContactListResponse.parse(res.json());
    };
    const broad = { total: searchCountBound, total_is_lower_bound: true };

    const anna = await page("search=ann&per_page=2");
    expect(anna.meta.pagination).toMatchObject(broad);
    expect(anna.data.map((c) => c.phone)).toEqual([phoneOf(old - 1), phoneOf(old - 2)]);
    const next = await page(`search=ann&per_page=2&cursor=${anna.meta.pagination.next_cursor}`);
    expect(next.data.map((c) => c.phone)).toEqual([phoneOf(old - 3), phoneOf(old - 4)]);

    const ben = await page("search=b&per_page=1");
    expect(ben.meta.pagination).toMatchObject(broad);
    expect(ben.data.map((c) => c.phone)).toEqual([phoneOf(old + 9_999)]);
    const clara = await page("search=cl&per_page=1");
    expect(clara.meta.pagination).toMatchObject(broad);
    expect(clara.data.map((c) => c.phone)).toEqual([phoneOf(old + 9_996)]);

    const eva = await page("search=eva&per_page=100");
    expect(eva.meta.pagination).toMatchObject({ total: 154, total_is_lower_bound: false });
    expect(eva.data[0]?.phone).toBe(phoneOf(old + 9_997));
    const evaLast = await page("search=eva&per_page=100&page=2");
    expect(evaLast.data.map((c) => c.phone).at(-1)).toBe(phoneOf(old + 8_008));
    expect(evaLast.meta.pagination.next_cursor).toBeNull();

    const first = await page("search=%2B4915110000001");
    expect(first.data.map((c) => c.first_name)).toEqual(["Anna"]);
    expect(first.meta.pagination).toMatchObject({ total: 1, total_is_lower_bound: false });
  });

  it("creates a contact once when two first upserts of one phone arrive together", async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) => upsert({ phone: "+4915112345678", first_name: `Try${n}` })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 201]);
    const list = ContactListResponse.parse(
      (await t.request("GET", `/api/v1/workspaces/${ws}/contacts`)).json(),
    );
    expect(list.data).toHaveLength(1);
    expect(list.meta.pagination.total).toBe(1);
  });

  it("keeps tag counts exact when contacts are tagged at once", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        upsert({ phone: `+49151123456${String(i).padStart(2, "0")}`, tags: ["gold", "vip"] }),
      ),
    );
    const tags = (await t.request("GET", `/api/v1/workspaces/${ws}/tags`)).json() as {
      data: { name: string; contact_count: number }[];
    };
    expect(Object.fromEntries(tags.data.map((tag) => [tag.name, tag.contact_count]))).toEqual({
      gold: 8,
      vip: 8,
    });
  });
});
