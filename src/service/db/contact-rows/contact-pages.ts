import { type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import type { Engine } from "../engine.js";

/**
 * The SQL of contact pages that differs between the engines: the contact as JSON text written
 * by the database, the case-insensitive tag name, and the search condition. Everything else of a
 * list (paging, counters, filters) is one portable query (domain/contacts.ts).
 */

/** The API's fields of a contact, in its order: `text` ones are quoted, `json` ones hold JSON already. */
const jsonFields: Array<[string, "text" | "json"]> = [
  ["id", "text"],
  ["phone", "text"],
  ["first_name", "text"],
  ["last_name", "text"],
  ["email", "text"],
  ["tags", "json"],
  ["custom_fields", "json"],
  ["opt_in_status", "text"],
  ["opt_in_source", "text"],
  ["opted_in_at", "text"],
  ["opted_out_at", "text"],
  ["created_at", "text"],
  ["updated_at", "text"],
];

/**
 * SQLite: concatenated text, json_quote escaping as JSON.stringify does (a NULL becomes `null`).
 * Columns are qualified: the search joins a table with columns of the same names.
 */
const sqliteJson = sql<string>`${sql.raw(
  `'{' || ${jsonFields
    .map(
      ([field, kind], i) =>
        `'${i === 0 ? "" : ","}"${field}":' || ${kind === "json" ? `"contacts"."${field}"` : `json_quote("contacts"."${field}")`}`,
    )
    .join(" || ")} || '}'`,
)}`;

/** PostgreSQL: json_build_object keeps the order of its keys; the JSON columns go in as json. */
const postgresJson = sql<string>`${sql.raw(
  `json_build_object(${jsonFields
    .map(([field, kind]) => `'${field}', "contacts"."${field}"${kind === "json" ? "::json" : ""}`)
    .join(", ")})::text`,
)}`;

/**
 * The contact as the API shows it, as JSON text written by the database from the stored row: a
 * page then costs no JavaScript object per row and no serialisation.
 */
export function contactJson(engine: Engine): RawBuilder<string> {
  return engine === "postgres" ? postgresJson : sqliteJson;
}

/**
 * Whether `contact_tags.name` is `name` whatever the case, read from the index on the folded
 * name (`COLLATE NOCASE` on SQLite, `lower(name)` on PostgreSQL).
 */
export function tagNamed(engine: Engine, name: string): RawBuilder<boolean> {
  return engine === "postgres"
    ? sql<boolean>`lower(name) = lower(${name})`
    : sql<boolean>`name = ${name} COLLATE NOCASE`;
}

/** PostgreSQL: contacts whose search terms match a tsquery text written by searchMatch. */
export function searchTermsMatch(match: string): RawBuilder<boolean> {
  return sql<boolean>`contacts.search_terms @@ ${match}::tsquery`;
}

/**
 * PostgreSQL's plan for the queries of a search that follow, in the caller's transaction: its
 * estimate of a prefix search is a guess (it walked a million rows to find four matches), so
 * the service chooses. `count`: the matches from the search index (a bitmap, then at most 1,001
 * rows). `walk`: a broad search's page by walking the workspace's contacts newest first and
 * testing each, which reaches a page of matches after a few dozen rows.
 */
export async function postgresSearchPlan(
  trx: QueryExecutorProvider,
  plan: "count" | "walk",
): Promise<void> {
  await sql`SET LOCAL enable_seqscan = off`.execute(trx);
  if (plan === "count") {
    await sql`SET LOCAL enable_indexscan = off`.execute(trx);
    await sql`SET LOCAL enable_bitmapscan = on`.execute(trx);
  } else {
    await sql`SET LOCAL enable_indexscan = on`.execute(trx);
    await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
  }
}
