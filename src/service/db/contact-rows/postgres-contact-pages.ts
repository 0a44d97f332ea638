import { type QueryExecutorProvider, type RawBuilder, sql } from "kysely";
import { postgresContactJson } from "./contact-json.js";
import type { ContactPages, PageSource } from "./contact-pages.js";
import { tsqueryText } from "./search-syntax.js";

/**
 * Contact pages on PostgreSQL: a search tests the `search_terms` tsvector of contacts (the same
 * terms as SQLite's index) with plans the service chooses (postgresSearchPlan).
 */

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
async function postgresSearchMatches(
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

/** The contact page statements on PostgreSQL. */
export const postgresContactPages: ContactPages = {
  json: postgresContactJson,

  /**
   * A broad search's page by walking the workspace's contacts newest first with the search as a
   * filter, a narrower one's from the seqs of its matches, so the search index is read once (see
   * postgresSearchMatches). The plans are chosen for the queries of one transaction.
   */
  search(db, { workspaceId, terms, filters, bound }, page) {
    return db.transaction().execute(async (trx) => {
      const conditions = [
        sql<boolean>`contacts.search_terms @@ ${tsqueryText(terms)}::tsquery`,
        ...filters,
      ];
      const seqs = await postgresSearchMatches(trx, workspaceId, conditions, bound);
      const inWorkspace = sql<boolean>`contacts.workspace_id = ${workspaceId}`;
      const source = (found: RawBuilder<boolean>[]): PageSource => ({
        from: sql`contacts`,
        key: "contacts.seq",
        conditions: [inWorkspace, ...found],
      });
      return seqs === null
        ? page(trx, { source: source(conditions), counted: async () => bound + 1 })
        : page(trx, {
            source: source([sql<boolean>`contacts.seq = ANY(${seqs}::int[])`]),
            counted: async () => seqs.length,
          });
    });
  },
};
