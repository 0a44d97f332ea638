import { type SelectQueryBuilder, sql } from "kysely";
import type {
  Contact,
  ContactListQuery,
  ContactNotice,
  OptInStatus,
  Tag,
  UpdateContactBody,
  UpsertContactBody,
} from "../../contract/contacts.js";
import type { ListMeta, PageQuery } from "../../contract/pagination.js";
import { checkE164 } from "../../contract/phones.js";
import {
  contactJson,
  postgresSearchMatches,
  searchTermsMatch,
  tagNamed,
} from "../db/contact-rows/contact-pages.js";
import type { Db } from "../db/database.js";
import { engineOf } from "../db/engine.js";
import { paginate } from "../db/keyset-paging.js";
import type { Database } from "../db/schema.js";
import type { ContactTable } from "../db/tables/contacts.js";
import type { Services } from "../services.js";
import { type Clock, isoSeconds } from "./clock.js";
import { searchMatch } from "./contact-search.js";
import {
  type ContactChanges,
  ContactWriter,
  isProblem,
  keepOptOut,
  optOutKeptMessage,
} from "./contact-store.js";
import { recordConsentEvent } from "./events.js";
import { enforcePlanLimit } from "./plan-limits.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import {
  loadActiveWorkspaceFor,
  loadWorkspaceFor,
  visibleWorkspaceId,
} from "./workspace-access.js";

/** What the contact rules need: the database and the time. */
export type ContactServices = Pick<Services, "db" | "clock">;

/** Consent times may run a little ahead of the service's clock, not more. */
const clockSkewMs = 5 * 60 * 1000;

/** Searches count their matches up to this many and then say "at least" (like "1,000+"). */
export const searchCountBound = 1000;

/** A row of a contacts page: its list key and its JSON (see db/contact-rows/contact-pages.ts). */
export interface ContactPageRow {
  seq: number;
  json: string;
}

/** The stored row as the API shows it. */
export function toContact(row: ContactTable): Contact {
  return {
    id: row.id,
    phone: row.phone,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    tags: JSON.parse(row.tags) as string[],
    custom_fields: JSON.parse(row.custom_fields) as Record<string, string>,
    opt_in_status: row.opt_in_status as OptInStatus,
    opt_in_source: row.opt_in_source,
    opted_in_at: row.opted_in_at,
    opted_out_at: row.opted_out_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function contactNotFound(contactId: string): ServiceError {
  return new ServiceError("not_found", `Contact '${contactId}' was not found in this workspace.`);
}

function refuseFutureConsent(clock: Clock, opted_in_at: string | undefined): void {
  if (opted_in_at !== undefined && Date.parse(opted_in_at) > clock.now().getTime() + clockSkewMs) {
    throw invalidField("opted_in_at", `${opted_in_at} is in the future`);
  }
}

/**
 * Creates or updates the workspace's contact with that phone. Given fields overwrite (tags are
 * replaced, custom fields merged); an omitted opt_in_status is not_set for a new contact and
 * leaves an existing one unchanged. A new contact counts against the plan's `contacts` limit.
 */
export async function upsertContact(
  services: ContactServices,
  principal: Principal,
  workspaceId: string,
  body: UpsertContactBody,
): Promise<{ contact: Contact; created: boolean; notices: ContactNotice[] }> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const phone = checkE164(body.phone);
  if (!phone.ok) throw invalidField("phone", phone.message);
  refuseFutureConsent(clock, body.opted_in_at);
  const { phone: _phone, ...changes } = body;
  const attempt = () =>
    db.transaction().execute(async (trx) => {
      const writer = new ContactWriter(trx, workspace.id);
      const context = { now: isoSeconds(clock.now()), source: "api" };
      const existing = await writer.byPhone(phone.e164);
      if (!existing) await enforcePlanLimit(trx, clock, workspace, "contacts", 1);
      const consent = keepOptOut(existing, changes);
      const result = existing
        ? writer.update(existing, consent.changes, context)
        : writer.create(phone.e164, changes, context);
      if (isProblem(result)) throw invalidField(result.field, result.message);
      await writer.flush();
      const contact = toContact(result);
      await recordConsentEvent(trx, clock, workspace.id, existing?.opt_in_status ?? null, contact);
      const notices = consent.kept ? [{ field: "opt_in_status", message: optOutKeptMessage }] : [];
      return { contact, created: !existing, notices };
    });
  try {
    return await attempt();
  } catch (error) {
    // Two first upserts of one phone at once (several instances on PostgreSQL): the one that
    // lost the insert runs again and finds the contact the other created.
    if (!isDuplicateKey(error)) throw error;
    return attempt();
  }
}

/** Whether a write failed on a unique key another transaction took first (PostgreSQL's 23505). */
function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}

/** Changes only the given fields of one contact; all three opt-in statuses are accepted. */
export async function updateContact(
  services: ContactServices,
  principal: Principal,
  workspaceId: string,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  refuseFutureConsent(clock, body.opted_in_at);
  const changes: ContactChanges = body;
  return db.transaction().execute(async (trx) => {
    const writer = new ContactWriter(trx, workspace.id);
    const existing = await writer.byId(contactId);
    if (!existing) throw contactNotFound(contactId);
    if (
      existing.opt_in_status === "opted_out" &&
      body.opt_in_status === "opted_in" &&
      body.opt_in_source === undefined
    ) {
      throw invalidField(
        "opt_in_source",
        "is required to re-subscribe a contact who opted out: say where the new consent came from, e.g. 'signed form 2026-11-22'",
      );
    }
    const result = writer.update(existing, changes, {
      now: isoSeconds(clock.now()),
      source: "api",
    });
    if (isProblem(result)) throw invalidField(result.field, result.message);
    await writer.flush();
    const contact = toContact(result);
    await recordConsentEvent(trx, clock, workspace.id, existing.opt_in_status, contact);
    return contact;
  });
}

/** One contact of a workspace the caller may see. */
export async function getContact(
  db: Db,
  principal: Principal,
  workspaceId: string,
  contactId: string,
): Promise<Contact> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const row = await db
    .selectFrom("contacts")
    .selectAll()
    .where("workspace_id", "=", workspace.id)
    .where("id", "=", contactId)
    .executeTakeFirst();
  if (!row) throw contactNotFound(contactId);
  return toContact(row);
}

/** How many contacts the workspace has (with that status), from the counters kept by triggers. */
async function counted(db: Db, workspaceId: string, status?: string): Promise<number> {
  // SQL text rather than the query builder: building the query cost more than running it.
  const byStatus = status === undefined ? sql`` : sql` AND opt_in_status = ${status}`;
  const total = sql<{ total: number | string | null }>`SELECT sum(count) AS total
    FROM contact_counts WHERE workspace_id = ${workspaceId}${byStatus}`;
  const { rows } = await total.execute(db);
  return Number(rows[0]?.total ?? 0);
}

/** A page of contacts: each contact's JSON (written by the database) and the list's meta. */
export interface ContactPage {
  rows: ContactPageRow[];
  meta: ListMeta;
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
  // The search index drives, whatever the other filters: SQLite keeps a CROSS JOIN's order. Left
  // to choose, it read a later page (a cursor, a tag) from the contacts by seq and asked the
  // index for each: 15 s for page 2 of a tag and a search at 200,000 contacts, instead of 2 ms.
  let select = db
    .selectFrom("contacts_fts")
    .crossJoin("contacts")
    .select([contactJson("sqlite").as("json"), "contacts.seq"])
    .where(sql<boolean>`contacts_fts MATCH ${match}`)
    .whereRef("contacts.seq", "=", "contacts_fts.rowid")
    // The terms are the workspace's own already; this only guards the page itself.
    .where("contacts.workspace_id", "=", workspaceId);
  if (query.opt_in_status)
    select = select.where("contacts.opt_in_status", "=", query.opt_in_status);
  if (tagSeqs !== undefined) select = select.where(hasTag(tagSeqs));
  // Counted from the search index alone when no other filter needs the contact row: its terms
  // are the workspace's own, so this reads no contact row (1,000 row lookups otherwise). The
  // bound is written into the SQL: SQLite prepares a statement again at every run when its LIMIT
  // is a bound parameter.
  const matches = (
    filters === 1
      ? db.selectFrom("contacts_fts").where(sql<boolean>`contacts_fts MATCH ${match}`)
      : select.clearSelect()
  )
    .select(sql<number>`1`.as("one"))
    .limit(sql.lit(searchCountBound + 1));
  const matched = Number(
    (
      await db
        .selectFrom(matches.as("matches"))
        .select(sql<number>`count(*)`.as("n"))
        .executeTakeFirst()
    )?.n ?? 0,
  );
  return searchResult(select, "contacts_fts.rowid", query, matched);
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
  const select = trx
    .selectFrom("contacts")
    .select([contactJson("postgres").as("json"), "contacts.seq"])
    .where("contacts.workspace_id", "=", workspaceId);
  return seqs === null
    ? searchResult(
        conditions.reduce((q, condition) => q.where(condition), select),
        "contacts.seq",
        query,
        searchCountBound + 1,
      )
    : searchResult(
        select.where(sql<boolean>`contacts.seq = ANY(${seqs}::int[])`),
        "contacts.seq",
        query,
        seqs.length,
      );
}

/** A page of `select`, ordered by `keyColumn`, with `matched` (counted up to the bound) as its total. */
async function searchResult<TB extends "contacts" | "contacts_fts">(
  select: SelectQueryBuilder<Database, TB, ContactPageRow>,
  keyColumn: string,
  query: ContactListQuery,
  matched: number,
): Promise<ContactPage> {
  const page = await paginate(select, keyColumn, query, {
    key: { column: keyColumn, of: (row) => row.seq },
    total: async () => Math.min(matched, searchCountBound),
  });
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
  const contactJsonSql = contactJson(engine);
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
      .where(tagNamed(engine, query.tag.trim()))
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

  if (tagSeqs?.length === 1) {
    let select = db
      .selectFrom("contact_tag_links")
      .innerJoin("contacts", "contacts.seq", "contact_tag_links.contact_seq")
      .select([contactJsonSql.as("json"), "contacts.seq"])
      .where("contact_tag_links.tag_seq", "=", tagSeqs[0] ?? 0);
    if (query.opt_in_status)
      select = select.where("contacts.opt_in_status", "=", query.opt_in_status);
    const page = await paginate(select, "contact_tag_links.contact_seq", query, {
      key: { column: "contact_tag_links.contact_seq", of: (row) => row.seq },
      ...(filters === 1 ? { total: async () => tagCount } : {}),
    });
    return { rows: page.rows, meta: { pagination: page.pagination } };
  }

  let select = db
    .selectFrom("contacts")
    .select([contactJsonSql.as("json"), "contacts.seq"])
    .where("workspace_id", "=", workspace.id);
  if (query.opt_in_status) select = select.where("opt_in_status", "=", query.opt_in_status);
  // Several tags differing only in case (`Gold` and `gold`): rare, read by the links of each.
  if (tagSeqs !== undefined) select = select.where(hasTag(tagSeqs));
  const page = await paginate(select, "contacts.seq", query, {
    key: { column: "contacts.seq", of: (row) => row.seq },
    ...(tagSeqs === undefined
      ? { total: () => counted(db, workspace.id, query.opt_in_status) }
      : {}),
  });
  return { rows: page.rows, meta: { pagination: page.pagination } };
}

/** The workspace's tags that some contact has, newest first, with how many contacts have each. */
export async function listTags(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: PageQuery,
): Promise<{ data: Tag[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const select = db
    .selectFrom("contact_tags")
    .select(["seq", "name", "contact_count", "created_at"])
    .where("workspace_id", "=", workspace.id)
    .where("contact_count", ">", 0);
  const page = await paginate(select, "contact_tags.seq", query, {
    key: { column: "contact_tags.seq", of: (row) => row.seq },
  });
  return {
    data: page.rows.map((r) => ({
      name: r.name,
      contact_count: r.contact_count,
      created_at: r.created_at,
    })),
    meta: { pagination: page.pagination },
  };
}
