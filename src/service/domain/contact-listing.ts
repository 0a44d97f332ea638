import { type RawBuilder, sql } from "kysely";
import type { ContactListQuery } from "../../contract/contacts.js";
import type { ListMeta } from "../../contract/pagination.js";
import {
  contactPagesOf,
  type PageSource,
  type SearchSource,
  tagNamed,
} from "../db/contact-rows/contact-pages.js";
import { searchQuery } from "../db/contact-rows/contact-search.js";
import { cursorSeal } from "../db/cursor-seal.js";
import type { Db } from "../db/database.js";
import { type Page, type PageStart, pageFrom, pageStart } from "../db/keyset-paging.js";
import { rememberedPage } from "./contact-page-memo.js";
import type { Principal } from "./tokens.js";
import { visibleWorkspaceId } from "./workspace-access.js";

/**
 * Pages of a workspace's contacts. Their queries are SQL text rather than the query builder:
 * building a page's query with it cost more than SQLite's reading of the page, and a 20-row
 * page is the request a client makes most. What differs between the engines (the contact's
 * JSON, a search's source and count) is db/contact-rows/contact-pages.ts's.
 */

/** Searches count their matches up to this many and then say "at least" (like "1,000+"). */
export const searchCountBound = 1000;

/** A row of a contacts page: its list key and its JSON (see db/contact-rows/contact-json.ts). */
export interface ContactPageRow {
  seq: number;
  json: string;
}

/** A page of contacts: each contact's JSON (written by the database) and the list's meta. */
export interface ContactPage {
  rows: ContactPageRow[];
  meta: ListMeta;
}

const where = (conditions: readonly RawBuilder<boolean>[]) => sql.join(conditions, sql` AND `);

/**
 * The rows of `source` from where `query` starts, one more than a page (see pageFrom), each
 * written as JSON by `json`.
 */
async function contactRows(
  db: Db,
  json: RawBuilder<string>,
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
  const { rows } = await sql<ContactPageRow>`SELECT ${json} AS json, ${key} AS seq
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
  json: RawBuilder<string>,
  source: PageSource,
  query: ContactListQuery,
  total: () => Promise<number>,
): Promise<Page<ContactPageRow>> {
  const { fetched, start } = await contactRows(db, json, source, query);
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

/**
 * A page of a search's matches; `counted` counts them up to the bound (one more when past it).
 * A page by number that shows its last match tells the count itself (most searches look for one
 * person and fit on their first page), so the count is asked only when the page cannot tell.
 */
async function searchResult(
  db: Db,
  json: RawBuilder<string>,
  { source, counted }: SearchSource,
  query: ContactListQuery,
): Promise<ContactPage> {
  const { fetched, start } = await contactRows(db, json, source, query);
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
  const id = await visibleWorkspaceId(db, principal, workspaceId);
  const { page, per_page, cursor, search, tag, opt_in_status } = query;
  // JSON tells an absent filter (null) from an empty one (`tag=` finds no contact).
  const key = JSON.stringify([id, page, per_page, cursor, search, tag, opt_in_status]);
  return rememberedPage(db, key, () => readContacts(db, id, query));
}

/** The page of the workspace's contacts that `query` asks for (see listContacts). */
async function readContacts(
  db: Db,
  workspaceId: string,
  query: ContactListQuery,
): Promise<ContactPage> {
  const workspace = { id: workspaceId };
  const pages = contactPagesOf(db);
  const search = query.search?.trim() ? query.search : undefined;
  // An empty `tag=` (a form's "any tag") filters nothing, as an empty `search=` does.
  const tag = query.tag?.trim() ? query.tag.trim() : undefined;
  const filters = [search, tag, query.opt_in_status].filter((f) => f !== undefined).length;

  let tagSeqs: number[] | undefined;
  let tagCount = 0;
  if (tag !== undefined) {
    // Tags match whatever their case: `GOLD` finds contacts tagged `gold` (or `Gold`).
    const found = await db
      .selectFrom("contact_tags")
      .select(["seq", "contact_count"])
      .where("workspace_id", "=", workspace.id)
      .where(tagNamed(tag))
      .execute();
    if (found.length === 0) return emptyPage(query);
    tagSeqs = found.map((t) => t.seq);
    tagCount = found.reduce((sum, t) => sum + t.contact_count, 0);
  }

  const byStatus = query.opt_in_status
    ? [sql<boolean>`contacts.opt_in_status = ${query.opt_in_status}`]
    : [];
  if (search !== undefined) {
    const terms = searchQuery(workspace.id, search);
    if (terms === null) return emptyPage(query);
    const others = [...byStatus, ...(tagSeqs === undefined ? [] : [hasTag(tagSeqs)])];
    const asked = { workspaceId: workspace.id, terms, filters: others, bound: searchCountBound };
    return pages.search(db, asked, (handle, found) =>
      searchResult(handle, pages.json, found, query),
    );
  }

  const [tagSeq, ...moreTags] = tagSeqs ?? [];
  if (tagSeq !== undefined && moreTags.length === 0) {
    const source = {
      from: sql`contact_tag_links INNER JOIN contacts ON contacts.seq = contact_tag_links.contact_seq`,
      key: "contact_tag_links.contact_seq",
      conditions: [sql<boolean>`contact_tag_links.tag_seq = ${tagSeq}`, ...byStatus],
    };
    const total = filters === 1 ? async () => tagCount : () => countOf(db, source);
    const page = await contactsPage(db, pages.json, source, query, total);
    return { rows: page.rows, meta: { pagination: page.pagination } };
  }

  const source = {
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
  const page = await contactsPage(db, pages.json, source, query, total);
  return { rows: page.rows, meta: { pagination: page.pagination } };
}

/** Every row of `source`, counted: for the filters no counter keeps (a tag and a status). */
async function countOf(db: Db, source: PageSource): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n
    FROM ${source.from} WHERE ${where(source.conditions)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
