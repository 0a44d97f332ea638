import { sql } from "kysely";
import type {
  Contact,
  ContactListQuery,
  OptInStatus,
  Tag,
  UpdateContactBody,
  UpsertContactBody,
} from "../../contract/contacts.js";
import type { ListMeta, PageQuery } from "../../contract/pagination.js";
import { checkE164 } from "../../contract/phones.js";
import type { Db } from "../db/database.js";
import { paginate } from "../db/keyset-paging.js";
import type { ContactTable } from "../db/tables/contacts.js";
import type { Services } from "../services.js";
import { type Clock, isoSeconds } from "./clock.js";
import { searchMatch } from "./contact-search.js";
import { type ContactChanges, ContactWriter, isProblem } from "./contact-store.js";
import { enforcePlanLimit } from "./plan-limits.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor } from "./workspace-access.js";

/** What the contact rules need: the database (and its raw handle for writes) and the time. */
export type ContactServices = Pick<Services, "db" | "sqlite" | "clock">;

/** Consent times may run a little ahead of the service's clock, not more. */
const clockSkewMs = 5 * 60 * 1000;

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
): Promise<{ contact: Contact; created: boolean }> {
  const { db, sqlite, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const phone = checkE164(body.phone);
  if (!phone.ok) throw invalidField("phone", phone.message);
  refuseFutureConsent(clock, body.opted_in_at);
  const { phone: _phone, ...changes } = body;
  return db.transaction().execute(async (trx) => {
    const writer = new ContactWriter(sqlite, workspace.id);
    const context = { now: isoSeconds(clock.now()), source: "api" };
    const existing = writer.byPhone(phone.e164);
    if (!existing) await enforcePlanLimit(trx, clock, workspace, "contacts", 1);
    const result = existing
      ? writer.update(existing, changes, context)
      : writer.create(phone.e164, changes, context);
    if (isProblem(result)) throw invalidField(result.field, result.message);
    return { contact: toContact(result), created: !existing };
  });
}

/** Changes only the given fields of one contact; all three opt-in statuses are accepted. */
export async function updateContact(
  services: ContactServices,
  principal: Principal,
  workspaceId: string,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  const { db, sqlite, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  refuseFutureConsent(clock, body.opted_in_at);
  const changes: ContactChanges = body;
  return db.transaction().execute(async () => {
    const writer = new ContactWriter(sqlite, workspace.id);
    const existing = writer.byId(contactId);
    if (!existing) throw contactNotFound(contactId);
    const result = writer.update(existing, changes, {
      now: isoSeconds(clock.now()),
      source: "api",
    });
    if (isProblem(result)) throw invalidField(result.field, result.message);
    return toContact(result);
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

async function counted(db: Db, workspaceId: string, status?: string): Promise<number> {
  let query = db
    .selectFrom("contact_counts")
    .select(sql<number | null>`sum(count)`.as("total"))
    .where("workspace_id", "=", workspaceId);
  if (status !== undefined) query = query.where("opt_in_status", "=", status);
  return Number((await query.executeTakeFirst())?.total ?? 0);
}

const emptyPage = (query: PageQuery): { data: Contact[]; meta: ListMeta } => ({
  data: [],
  meta: {
    pagination: {
      page: query.page,
      per_page: query.per_page,
      total: 0,
      total_pages: 0,
      next_cursor: null,
    },
  },
});

/**
 * A page of the workspace's contacts, newest first, filtered by search, tag and opt-in status.
 * Each shape of filter is read from its own index (the search index for search, the tag's
 * links for a tag, the status index for a status), and totals come from counters where one
 * filter alone is given, so a page costs the same at a million contacts as at a hundred.
 */
export async function listContacts(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: ContactListQuery,
): Promise<{ data: Contact[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const search = query.search?.trim() ? query.search : undefined;
  const filters = [search, query.tag, query.opt_in_status].filter((f) => f !== undefined).length;

  let tagSeq: number | undefined;
  let tagCount = 0;
  if (query.tag !== undefined) {
    const tag = await db
      .selectFrom("contact_tags")
      .select(["seq", "contact_count"])
      .where("workspace_id", "=", workspace.id)
      .where("name", "=", query.tag.trim())
      .executeTakeFirst();
    if (!tag) return emptyPage(query);
    tagSeq = tag.seq;
    tagCount = tag.contact_count;
  }

  if (search !== undefined) {
    const match = searchMatch(workspace.id, search);
    if (match === null) return emptyPage(query);
    let select = db
      .selectFrom("contacts_fts")
      .innerJoin("contacts", "contacts.seq", "contacts_fts.rowid")
      .selectAll("contacts")
      .where(sql<boolean>`contacts_fts MATCH ${match}`)
      // The terms are the workspace's own already; this only guards the page itself.
      .where("contacts.workspace_id", "=", workspace.id);
    if (query.opt_in_status)
      select = select.where("contacts.opt_in_status", "=", query.opt_in_status);
    if (tagSeq !== undefined) {
      select = select.where(({ exists, selectFrom }) =>
        exists(
          selectFrom("contact_tag_links")
            .select("contact_tag_links.tag_seq")
            .where("contact_tag_links.tag_seq", "=", tagSeq)
            .whereRef("contact_tag_links.contact_seq", "=", "contacts.seq"),
        ),
      );
    }
    const page = await paginate(select, "contacts_fts.rowid", query, {
      key: { column: "contacts_fts.rowid", of: (row) => row.seq },
      ...(filters === 1
        ? {
            total: async () =>
              Number(
                (
                  await db
                    .selectFrom("contacts_fts")
                    .select(sql<number>`count(*)`.as("n"))
                    .where(sql<boolean>`contacts_fts MATCH ${match}`)
                    .executeTakeFirst()
                )?.n ?? 0,
              ),
          }
        : {}),
    });
    return { data: page.rows.map(toContact), meta: { pagination: page.pagination } };
  }

  if (tagSeq !== undefined) {
    let select = db
      .selectFrom("contact_tag_links")
      .innerJoin("contacts", "contacts.seq", "contact_tag_links.contact_seq")
      .selectAll("contacts")
      .where("contact_tag_links.tag_seq", "=", tagSeq);
    if (query.opt_in_status)
      select = select.where("contacts.opt_in_status", "=", query.opt_in_status);
    const page = await paginate(select, "contact_tag_links.contact_seq", query, {
      key: { column: "contact_tag_links.contact_seq", of: (row) => row.seq },
      ...(filters === 1 ? { total: async () => tagCount } : {}),
    });
    return { data: page.rows.map(toContact), meta: { pagination: page.pagination } };
  }

  let select = db.selectFrom("contacts").selectAll().where("workspace_id", "=", workspace.id);
  if (query.opt_in_status) select = select.where("opt_in_status", "=", query.opt_in_status);
  const page = await paginate(select, "contacts.seq", query, {
    key: { column: "contacts.seq", of: (row) => row.seq },
    total: () => counted(db, workspace.id, query.opt_in_status),
  });
  return { data: page.rows.map(toContact), meta: { pagination: page.pagination } };
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
