import { type RawBuilder, sql } from "kysely";
import type { ContactListQuery } from "../../contract/contacts.js";
import type { ListMeta } from "../../contract/pagination.js";
import {
  contactJson,
  postgresSearchMatches,
  searchTermsMatch,
  tagNamed,
} from "../db/contact-rows/contact-pages.js";
import { cursorSeal } from "../db/cursor-seal.js";
import type { Db } from "../db/database.js";
import { type Engine, engineOf } from "../db/engine.js";
import { type Page, type PageStart, pageFrom, pageStart } from "../db/keyset-paging.js";
import { searchMatch } from "./contact-search.js";
import type { Principal } from "./tokens.js";
import { visibleWorkspaceId } from "./workspace-access.js";

/**
 * Pages of a workspace's contacts. Their queries are SQL text rather than the query builder:
 * building a page's query with it cost more than SQLite's reading of the page, and a 20-row
 * page is the request a client makes most.
 */

/** Searches count their matches up to this many and then say "at least" (like "1,000+"). */
export const searchCountBound = 1000;

/** A row of a contacts page: its list key and its JSON (see db/contact-rows/contact-pages.ts). */
export interface ContactPageRow {
  seq: number;
  json: string;
}

/** A page of contacts: each contact's JSON (written by the database) and the list's meta. */
export interface ContactPage {
  rows: ContactPageRow[];
  meta: ListMeta;
}

/** What a page reads: its tables, the key it is ordered by (newest first) and its conditions. */
interface PageSource {
  engine: Engine;
  /** The tables, joined as the plan needs (`contacts` among them). */
  from: RawBuilder<unknown>;
  /** An integer column equal to `contacts.seq`, read from an index the plan walks. */
  key: string;
  conditions: readonly RawBuilder<boolean>[];
}

const where = (conditions: readonly RawBuilder<boolean>[]) => sql.join(conditions, sql` AND `);

/** The rows of `source` from where `query` starts, one more than a page (see pageFrom). */
async function contactRows(
  db: Db,
  source: PageSource,
  query: ContactListQuery,
): Promise<{ fetched: ContactPageRow[]; start: PageStart }> {
  const start = pageStart(query, await cursorSeal(db));
  const key = sql.ref(source.key);
  const conditions =
    start.after === null
      ? source.conditions
      : [...source.conditions, sql<boolean>`${key} < ${start.after}`];
  // A literal LIMIT: SQLite prepares a statement again at every run when its LIMIT is bound.
  const { rows } =
    await sql<ContactPageRow>`SELECT ${contactJson(source.engine)} AS json, ${key} AS seq
    FROM ${source.from} WHERE ${where(conditions)}
    ORDER BY ${key} DESC LIMIT ${sql.lit(start.perPage + 1)}${
      start.after === null ? sql` OFFSET ${start.skipped}` : sql``
    }`.execute(db);
  return { fetched: rows, start };
}

const seqOf = (row: ContactPageRow) => row.seq;

/** The page of `source` that `query` asks for, with `total` as its total. */
async function contactsPage(
  db: Db,
  source: PageSource,
  query: ContactListQuery,
  total: () => Promise<number>,
): Promise<Page<ContactPageRow>> {
  const { fetched, start } = await contactRows(db, source, query);
  return pageFrom(fetched, start, await total(), seqOf);
}

/** How many contacts the workspace has (with that status), from the counters kept by triggers. */
async function counted(db: Db, workspaceId: string, status?: string): Promise<number> {
  const byStatus = status === undefined ? sql`` : sql` AND opt_in_status = ${status}`;
  const total = sql<{ total: number | string | null }>`SELECT sum(count) AS total
    FROM contact_counts WHERE workspace_id = ${workspaceId}${byStatus}`;
  const { rows } = await total.execute(db);
  return Number(rows[0]?.total ?? 0);
}

/** A page of nothing; a search's says its total is exact (the contract: present on searches). */
const emptyPage = (query: ContactListQuery): ContactPage => ({
  rows: [],
  meta: {
    pagination: {
      page: query.page,
      per_page: query.per_page,
      total: 0,
      ...(query.search?.trim() ? { total_is_lower_bound: false } : {}),
      total_pages: 0,
      next_cursor: null,
    },
  },
});

/** What a search page is asked for (see listContacts). */
interface SearchRequest {
  workspaceId: string;
  /** The search in the engine's syntax (searchMatch). */
  match: string;
  query: ContactListQuery;
  /** How many of search, tag and status are given. */
  filters: number;
  tagSeqs: number[] | undefined;
}

/** SQLite's page of search matches, counted up to `searchCountBound`. */
async function searchPage(
  db: Db,
  { workspaceId, match, query, filters, tagSeqs }: SearchRequest,
): Promise<ContactPage> {
  const matches = sql<boolean>`contacts_fts MATCH ${match}`;
  const conditions = [
    matches,
    sql<boolean>`contacts.seq = contacts_fts.rowid`,
    // The terms are the workspace's own already; this only guards the page itself.
    sql<boolean>`contacts.workspace_id = ${workspaceId}`,
  ];
  if (query.opt_in_status)
    conditions.push(sql<boolean>`contacts.opt_in_status = ${query.opt_in_status}`);
  if (tagSeqs !== undefined) conditions.push(hasTag(tagSeqs));
  // The search index drives, whatever the other filters: SQLite keeps a CROSS JOIN's order. Left
  // to choose, it read a later page (a cursor, a tag) from the contacts by seq and asked the
  // index for each: 15 s for page 2 of a tag and a search at 200,000 contacts, instead of 2 ms.
  const from = sql`contacts_fts CROSS JOIN contacts`;
  const countMatches = async () => {
    // Counted from the search index alone when no other filter needs the contact row: its terms
    // are the workspace's own, so this reads no contact row (1,000 row lookups otherwise). The
    // bound is written into the SQL, as a page's LIMIT is.
    const counting =
      filters === 1
        ? sql`SELECT 1 FROM contacts_fts WHERE ${matches}`
        : sql`SELECT 1 FROM ${from} WHERE ${where(conditions)}`;
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n
      FROM (${counting} LIMIT ${sql.lit(searchCountBound + 1)})`.execute(db);
    return Number(rows[0]?.n ?? 0);
  };
  return searchResult(
    db,
    { engine: "sqlite", from, key: "contacts_fts.rowid", conditions },
    query,
    countMatches,
  );
}

/**
 * PostgreSQL's page of search matches (see postgresSearchMatches): a broad search's page by
 * walking the workspace's contacts newest first with the search as a filter, a narrower one's
 * from the seqs of its matches, so the search index is read once.
 */
async function postgresSearchPage(
  trx: Db,
  { workspaceId, match, query, tagSeqs }: SearchRequest,
): Promise<ContactPage> {
  const conditions = [searchTermsMatch(match)];
  if (query.opt_in_status)
    conditions.push(sql<boolean>`contacts.opt_in_status = ${query.opt_in_status}`);
  if (tagSeqs !== undefined) conditions.push(hasTag(tagSeqs));
  const seqs = await postgresSearchMatches(trx, workspaceId, conditions, searchCountBound);
  const inWorkspace = sql<boolean>`contacts.workspace_id = ${workspaceId}`;
  const source = (found: RawBuilder<boolean>[]): PageSource => ({
    engine: "postgres",
    from: sql`contacts`,
    key: "contacts.seq",
    conditions: [inWorkspace, ...found],
  });
  return seqs === null
    ? searchResult(trx, source(conditions), query, async () => searchCountBound + 1)
    : searchResult(
        trx,
        source([sql<boolean>`contacts.seq = ANY(${seqs}::int[])`]),
        query,
        async () => seqs.length,
      );
}

/**
 * A page of a search's matches; `counted` counts them up to the bound (one more when past it).
 * A page by number that shows its last match tells the count itself (most searches look for one
 * person and fit on their first page), so the count is asked only when the page cannot tell.
 */
async function searchResult(
  db: Db,
  source: PageSource,
  query: ContactListQuery,
  counted: () => Promise<number>,
): Promise<ContactPage> {
  const { fetched, start } = await contactRows(db, source, query);
  const last = fetched.length <= start.perPage;
  const tells = query.cursor === undefined && last && (fetched.length > 0 || start.skipped === 0);
  const matched = tells ? start.skipped + fetched.length : await counted();
  const page = pageFrom(fetched, start, Math.min(matched, searchCountBound), seqOf);
  if (matched <= searchCountBound) {
    return {
      rows: page.rows,
      meta: { pagination: { ...page.pagination, total_is_lower_bound: false } },
    };
  }
  // Past the bound, the page itself tells more: the rows before it and on it match, one more
  // does when there is a next page, and on the last page that is every match. A walk to the end
  // then ends exact, and a page that shows rows is never past `total_pages`. A page past the
  // end (by number) shows nothing and tells nothing.
  const next = page.pagination.next_cursor;
  const perPage = page.pagination.per_page;
  const seen = page.rows.length > 0 ? page.skipped + page.rows.length : 0;
  const total = Math.max(searchCountBound, seen + (next === null ? 0 : 1));
  return {
    rows: page.rows,
    meta: {
      pagination: {
        ...page.pagination,
        total,
        total_is_lower_bound: next !== null || seen <= searchCountBound,
        total_pages: Math.ceil(total / perPage),
      },
    },
  };
}

/** Whether the contact has one of the tags (by their seqs). */
const hasTag = (seqs: number[]) =>
  sql<boolean>`EXISTS (SELECT 1 FROM contact_tag_links WHERE contact_tag_links.contact_seq = contacts.seq AND contact_tag_links.tag_seq IN (${sql.join(seqs)}))`;

/**
 * A page of the workspace's contacts, newest first, filtered by search, tag and opt-in status.
 * Each shape of filter is read from its own index (the search index for search, the tag's
 * links for a tag, the status index for a status), and totals come from counters where one
 * filter alone is given, so a page costs the same at a million contacts as at a hundred. A
 * search counts its matches only up to `searchCountBound` (see `total_is_lower_bound`).
 */
export async function listContacts(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: ContactListQuery,
): Promise<ContactPage> {
  const workspace = { id: await visibleWorkspaceId(db, principal, workspaceId) };
  const engine = engineOf(db);
  const search = query.search?.trim() ? query.search : undefined;
  const filters = [search, query.tag, query.opt_in_status].filter((f) => f !== undefined).length;

  let tagSeqs: number[] | undefined;
  let tagCount = 0;
  if (query.tag !== undefined) {
    // Tags match whatever their case: `GOLD` finds contacts tagged `gold` (or `Gold`).
    const found = await db
      .selectFrom("contact_tags")
      .select(["seq", "contact_count"])
      .where("workspace_id", "=", workspace.id)
      .where(tagNamed(query.tag.trim()))
      .execute();
    if (found.length === 0) return emptyPage(query);
    tagSeqs = found.map((t) => t.seq);
    tagCount = found.reduce((sum, t) => sum + t.contact_count, 0);
  }

  if (search !== undefined) {
    const match = searchMatch(workspace.id, search, engine);
    if (match === null) return emptyPage(query);
    const request = { workspaceId: workspace.id, match, query, filters, tagSeqs };
    if (engine === "sqlite") return searchPage(db, request);
    // PostgreSQL cannot estimate how many contacts a prefix search matches (its guess walks a
    // million rows for four matches), so the service picks the plans in one transaction.
    return db.transaction().execute((trx) => postgresSearchPage(trx, request));
  }

  const byStatus = query.opt_in_status
    ? [sql<boolean>`contacts.opt_in_status = ${query.opt_in_status}`]
    : [];
  const [tagSeq, ...moreTags] = tagSeqs ?? [];
  if (tagSeq !== undefined && moreTags.length === 0) {
    const source = {
      engine,
      from: sql`contact_tag_links INNER JOIN contacts ON contacts.seq = contact_tag_links.contact_seq`,
      key: "contact_tag_links.contact_seq",
      conditions: [sql<boolean>`contact_tag_links.tag_seq = ${tagSeq}`, ...byStatus],
    };
    const total = filters === 1 ? async () => tagCount : () => countOf(db, source);
    const page = await contactsPage(db, source, query, total);
    return { rows: page.rows, meta: { pagination: page.pagination } };
  }

  const source = {
    engine,
    from: sql`contacts`,
    key: "contacts.seq",
    conditions: [
      sql<boolean>`contacts.workspace_id = ${workspace.id}`,
      ...byStatus,
      // Several tags differing only in case (`Gold` and `gold`): rare, read by the links of each.
      ...(tagSeqs === undefined ? [] : [hasTag(tagSeqs)]),
    ],
  };
  const total =
    tagSeqs === undefined
      ? () => counted(db, workspace.id, query.opt_in_status)
      : () => countOf(db, source);
  const page = await contactsPage(db, source, query, total);
  return { rows: page.rows, meta: { pagination: page.pagination } };
}

/** Every row of `source`, counted: for the filters no counter keeps (a tag and a status). */
async function countOf(db: Db, source: PageSource): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n
    FROM ${source.from} WHERE ${where(source.conditions)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
