import { type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import { foldedTagName } from "../../../contract/contact-rules.js";
import type { Engine } from "../engine.js";

/**
 * The SQL of contact pages that differs between the engines: the contact as JSON text written
 * by the database, the case-insensitive tag name, and the search condition. Everything else of a
 * list (paging, counters, filters) is one portable query (domain/contact-listing.ts).
 */

/**
 * The API's fields of a contact, in its order, and how each is written into JSON: `json` ones
 * hold JSON already; `text` ones are quoted and escaped; `plain` ones are quoted without escaping
 * (SQLite's json_quote was a third of a page's cost), which is safe because only the service
 * writes them, in alphabets that JSON never escapes: an id (`ct_` and base32), a phone in E.164,
 * an opt-in status and timestamps it normalised to ISO 8601.
 */
const jsonFields: Array<[string, "plain" | "text" | "json", "null" | "not null"]> = [
  ["id", "plain", "not null"],
  ["phone", "plain", "not null"],
  ["first_name", "text", "null"],
  ["last_name", "text", "null"],
  ["email", "text", "null"],
  ["tags", "json", "not null"],
  ["custom_fields", "json", "not null"],
  ["opt_in_status", "plain", "not null"],
  ["opt_in_source", "text", "null"],
  ["opted_in_at", "plain", "null"],
  ["opted_out_at", "plain", "null"],
  ["created_at", "plain", "not null"],
  ["updated_at", "plain", "not null"],
];

/** A field's place in SQLite's format() and the value that fills it. */
function sqliteFormatted([field, kind, nullable]: (typeof jsonFields)[number]): [string, string] {
  const column = `"contacts"."${field}"`;
  if (kind === "json") return ["%s", column];
  if (kind === "text") return ["%s", `json_quote(${column})`];
  // format() writes a NULL as nothing, so a plain field that may be NULL brings its own quotes.
  if (nullable === "null") return ["%s", `coalesce('"' || ${column} || '"', 'null')`];
  return ['"%s"', column];
}

/**
 * SQLite: one format() call, which builds the text once (concatenation copies it at every
 * step). Columns are qualified: the search joins a table with columns of the same names.
 */
const sqliteJson = sql<string>`${sql.raw(
  `format('{${jsonFields
    .map((field) => `"${field[0]}":${sqliteFormatted(field)[0]}`)
    .join(",")}}', ${jsonFields.map((field) => sqliteFormatted(field)[1]).join(", ")})`,
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
 * Whether the `contact_tags` row is the tag `name` whatever the case (see foldedTagName), read
 * from the index on the folded name.
 */
export function tagNamed(name: string): RawBuilder<boolean> {
  const folded = foldedTagName(name);
  // A tag an instance of the release before migration 0016 wrote during a rolling upgrade has
  // no folded name (''): it is matched as that release matched it.
  return sql<boolean>`(folded_name = ${folded} OR (folded_name = '' AND lower(name) = ${folded}))`;
}

/** PostgreSQL: contacts whose search terms match a tsquery text written by searchMatch. */
export function searchTermsMatch(match: string): RawBuilder<boolean> {
  return sql<boolean>`contacts.search_terms @@ ${match}::tsquery`;
}

/**
 * PostgreSQL's plan for the queries of a search that follow, in the caller's transaction: its
 * estimate of a prefix search is a guess (it walked a million rows to find four matches), so
 * the service chooses. `count`: the matches from the search index (a bitmap, then at most 1,001
 * rows). `walk`: the workspace's contacts newest first, each tested, which reaches a page of a
 * broad search's matches after a few dozen rows; also a page of the contacts of a list of seqs.
 */
async function postgresSearchPlan(
  trx: QueryExecutorProvider,
  plan: "count" | "walk",
): Promise<void> {
  // One statement: a search switches plans up to three times.
  const walk = plan === "walk" ? "on" : "off";
  const count = plan === "count" ? "on" : "off";
  await sql`SELECT set_config('enable_seqscan', 'off', true),
    set_config('enable_indexscan', ${walk}, true),
    set_config('enable_bitmapscan', ${count}, true)`.execute(trx);
}

/**
 * A PostgreSQL search first tests this many of the workspace's newest contacts: when a twentieth
 * or more of them match, the search is likely broad, and testing more of the newest until over
 * the bound match costs less than asking the search index, which lists every match before the
 * first is read (at a million contacts, 40–90 ms for the 145,000 to 220,000 that `s` or `k`
 * match; testing 10,000 contacts, 4–6 ms).
 */
const sampledNewest = 2_000;
/** The most contacts a likely broad search tests before it asks the search index. */
const mostTestedNewest = 20_000;

/** The columns a search's conditions name (`*` costs a quarter more). */
const testedColumns = sql.raw("seq, opt_in_status, search_terms");

/** How many of the workspace's `tested` newest contacts meet `met`, up to `bound` + 1. */
async function newestMet(
  trx: QueryExecutorProvider,
  workspaceId: string,
  met: RawBuilder<boolean>,
  tested: number,
  bound: number,
): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM (
      SELECT 1 FROM (SELECT ${testedColumns} FROM contacts WHERE workspace_id = ${workspaceId}
        ORDER BY seq DESC LIMIT ${tested}) AS contacts
      WHERE ${met} LIMIT ${bound + 1}) AS found`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}

/**
 * PostgreSQL: the seqs of the workspace's contacts that meet `conditions` (the search and any
 * other filter, written on the table `contacts`), when at most `bound` do; null when more do.
 * A likely broad search is tested on the newest contacts first; the search index answers the
 * rest (and finds old matches). The transaction is left with the `walk` plan, for the page: the
 * newest matches of a broad search, or the contacts of the seqs.
 */
export async function postgresSearchMatches(
  trx: QueryExecutorProvider,
  workspaceId: string,
  conditions: readonly RawBuilder<boolean>[],
  bound: number,
): Promise<number[] | null> {
  const met = sql<boolean>`${sql.join(conditions, sql` AND `)}`;
  await postgresSearchPlan(trx, "walk");
  const sampled = await newestMet(trx, workspaceId, met, sampledNewest, bound);
  if (sampled > bound) return null;
  if (sampled * 20 >= sampledNewest) {
    // Half as many again as the sample's share of matches needs, in case the newest are richer.
    const needed = Math.ceil((1.5 * (bound + 1) * sampledNewest) / sampled);
    const tested = Math.min(mostTestedNewest, needed);
    if ((await newestMet(trx, workspaceId, met, tested, bound)) > bound) return null;
  }
  await postgresSearchPlan(trx, "count");
  // Unordered: sorted, every match's row would be read; in the bitmap's order the reads stop at
  // bound + 1.
  const { rows } = await sql<{ seq: number }>`SELECT seq FROM contacts
    WHERE workspace_id = ${workspaceId} AND ${met} LIMIT ${bound + 1}`.execute(trx);
  await postgresSearchPlan(trx, "walk");
  return rows.length > bound ? null : rows.map((row) => row.seq);
}
