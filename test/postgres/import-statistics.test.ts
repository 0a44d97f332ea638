import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContactImportResponse } from "../../src/contract/contact-imports.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

function phonesCsv(rows: number, prefix: string): string {
  const lines = ["phone,first_name"];
  for (let i = 0; i < rows; i++) lines.push(`${prefix}${String(10_000_000 + i)},Name${i}`);
  return `${lines.join("\n")}\n`;
}

describe("an import into a workspace the planner's statistics do not know yet", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  async function imported(ws: string, csv: string) {
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv: base64(csv) },
    });
    expect(res.statusCode).toBe(202);
    const id = ContactImportResponse.parse(res.json()).data.id;
    await t.runJobs();
    const done = await t.request("GET", `/api/v1/workspaces/${ws}/contacts/imports/${id}`);
    return ContactImportResponse.parse(done.json()).data;
  }

  it("leaves statistics by which each phone is looked up through the unique phone index", async () => {
    const db = t.database.db;
    // Statistics taken while only another workspace had contacts, and no autovacuum to renew
    // them: the state in which a batch's phone lookups scanned the whole workspace instead.
    const other = await t.createWorkspace({ name: "Other" });
    expect((await imported(other, phonesCsv(100, "+49152"))).status).toBe("completed");
    await sql`ALTER TABLE contacts SET (autovacuum_enabled = false)`.execute(db);
    await sql`ANALYZE contacts`.execute(db);

    const ws = await t.createWorkspace({ name: "New" });
    expect(await imported(ws, phonesCsv(6_000, "+49151"))).toMatchObject({
      status: "completed",
      created: 6_000,
    });
    const { rows } = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT f.seq
      FROM unnest(${["+4915110000001", "+4915110000002"]}::text[]) AS k(key)
      CROSS JOIN LATERAL (SELECT seq FROM contacts AS c
        WHERE c.workspace_id = ${ws} AND c.phone = k.key LIMIT 1) AS f`.execute(db);
    const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
    expect(plan).toContain("contacts_by_phone");
  });

  it("spends no ANALYZE on a file of one batch, whose time it would be most of", async () => {
    const db = t.database.db;
    const analyses = async () => {
      const { rows } = await sql<{ n: string }>`SELECT analyze_count AS n
        FROM pg_stat_user_tables WHERE relname = 'contacts'`.execute(db);
      return Number(rows[0]?.n);
    };
    await sql`SELECT pg_stat_clear_snapshot()`.execute(db);
    const before = await analyses();
    const ws = await t.createWorkspace({ name: "Small" });
    expect((await imported(ws, phonesCsv(20, "+49153"))).status).toBe("completed");
    await sql`SELECT pg_stat_clear_snapshot()`.execute(db);
    expect(await analyses()).toBe(before);
  });
});
