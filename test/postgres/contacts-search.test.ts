import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactListResponse, ContactResponse } from "../../src/contract/contacts.js";
import { foldDiacritics, searchDocument } from "../../src/service/domain/contact-search.js";
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
