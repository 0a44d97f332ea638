import { Kysely, SqliteDialect } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registerSqliteHandle } from "../../src/service/db/engine.js";
import type { Database } from "../../src/service/db/schema.js";
import { listContacts } from "../../src/service/domain/contact-listing.js";
import type { Principal } from "../../src/service/domain/tokens.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * Pages of contacts must cost the same at any depth and any size: each query a list runs is
 * read straight from an index in the list's order, never sorted in a temporary tree.
 */
describe("query plans of contact pages", () => {
  let t: TestApp;
  let ws: string;
  let principal: Principal;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
    for (const [phone, first_name] of [
      ["+4915112345678", "Anna"],
      ["+4915223456789", "Anton"],
      ["+14155550123", "Carl"],
    ] as const) {
      await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, { body: { phone, first_name } });
    }
    const reseller = await t.database.db
      .selectFrom("resellers")
      .select("id")
      .executeTakeFirstOrThrow();
    principal = {
      tokenId: "tok_plans",
      resellerId: reseller.id,
      workspaceId: null,
      scopes: new Set(),
      expiresAt: null,
    };
  });
  afterEach(() => t.close());

  /** The plan of every query one list call runs, as EXPLAIN QUERY PLAN details. */
  async function plansOf(query: Record<string, unknown>): Promise<string[][]> {
    const { sqlite } = t.database;
    // EXPLAIN QUERY PLAN is SQLite's (this file runs in the sqlite project only).
    if (!sqlite) throw new Error("query plans are read from SQLite");
    const seen: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        seen.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    registerSqliteHandle(db, sqlite);
    await listContacts(db, principal, ws, { page: 1, per_page: 1, ...query });
    return seen.map(({ sql, parameters }) =>
      (
        sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>
      ).map((row) => row.detail),
    );
  }

  it("reads a search page, first or by cursor, newest first from the search index", async () => {
    const first = await listContacts(t.database.db, principal, ws, {
      page: 1,
      per_page: 1,
      search: "a",
    });
    const cursor = first.meta.pagination.next_cursor ?? "";
    for (const query of [{ search: "a" }, { search: "a", cursor }]) {
      const plans = await plansOf(query);
      const page = plans.find(
        (plan) => plan.some((d) => d.includes("contacts_fts")) && plan.length === 2,
      );
      expect(page?.[0]).toMatch(/^SCAN contacts_fts VIRTUAL TABLE INDEX \d+:M/);
      expect(page?.[1]).toMatch(/^SEARCH contacts USING INTEGER PRIMARY KEY/);
      expect(plans.flat().join("\n")).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("reads a plain list page, first or by cursor, from the workspace's index without sorting", async () => {
    const first = await listContacts(t.database.db, principal, ws, { page: 1, per_page: 1 });
    const cursor = first.meta.pagination.next_cursor ?? "";
    for (const query of [{}, { cursor }]) {
      const details = (await plansOf(query)).flat().join("\n");
      expect(details).toMatch(/SEARCH contacts USING (COVERING )?INDEX contacts_by_workspace/);
      expect(details).not.toMatch(/TEMP B-TREE|SCAN contacts\b/);
    }
  });
});
