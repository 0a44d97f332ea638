import { sql } from "kysely";
import { consentTimeProblem } from "../../contract/contact-rules.js";
import type {
  Contact,
  OptInStatus,
  Tag,
  UpdateContactBody,
  UpsertContactBody,
} from "../../contract/contacts.js";
import type { Notice } from "../../contract/envelope.js";
import { quoted } from "../../contract/errors.js";
import type { ListMeta, PageQuery } from "../../contract/pagination.js";
import { checkE164 } from "../../contract/phones.js";
import { cursorSeal } from "../db/cursor-seal.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { paginate } from "../db/keyset-paging.js";
import type { ContactTable } from "../db/tables/contacts.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import type { Services } from "../services.js";
import { type Clock, isoSeconds } from "./clock.js";
import {
  type ContactChanges,
  ContactWriter,
  isProblem,
  keepOptOut,
  optedOutLast,
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

/** The stored row as the API shows it. */
export function toContact(row: ContactTable): Contact {
  return {
    id: row.id,
    phone: row.phone,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    tags: parseJson(row.tags),
    custom_fields: parseJson(row.custom_fields),
    opt_in_status: row.opt_in_status as OptInStatus,
    opt_in_source: row.opt_in_source,
    opted_in_at: row.opted_in_at,
    opted_out_at: row.opted_out_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function contactNotFound(contactId: string): ServiceError {
  return new ServiceError(
    "not_found",
    `Contact ${quoted(contactId)} was not found in this workspace.`,
  );
}

function refuseImpossibleConsent(clock: Clock, opted_in_at: string | undefined): void {
  const problem = opted_in_at === undefined ? null : consentTimeProblem(opted_in_at, clock.now());
  if (problem !== null) throw invalidField("opted_in_at", problem);
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
): Promise<{ contact: Contact; created: boolean; notices: Notice[] }> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const phone = checkE164(body.phone);
  if (!phone.ok) throw invalidField("phone", phone.message);
  refuseImpossibleConsent(clock, body.opted_in_at);
  const { phone: _phone, ...changes } = body;
  const attempt = () =>
    db.transaction().execute(async (trx) => {
      const writer = new ContactWriter(trx, workspace.id);
      const context = { now: isoSeconds(clock.now()), source: "api" };
      let existing = await writer.byPhone(phone.e164);
      if (!existing) {
        // Creates count under the workspace's lock (PostgreSQL). One that waited there for
        // another first upsert of this phone finds that contact now and updates it, instead of
        // counting itself against a limit with one place left.
        await lockWorkspaceRow(trx, workspace.id);
        existing = await writer.byPhone(phone.e164);
        if (!existing) await enforcePlanLimit(trx, clock, workspace, "contacts", 1);
      }
      const consent = keepOptOut(existing, changes);
      const result = existing
        ? writer.update(existing, consent.changes, context)
        : writer.create(phone.e164, changes, context);
      if (isProblem(result)) throw invalidField(result.field, result.message);
      await writer.flush();
      const contact = toContact(result);
      await recordConsentEvent(trx, clock, workspace.id, existing?.opt_in_status ?? null, contact);
      const notices = consent.kept
        ? [{ field: "opt_in_status", message: optOutKeptMessage(existing ?? result) }]
        : [];
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

/** Changes only the given fields of one contact; an opt-out is undone only by opted_in with a source. */
export async function updateContact(
  services: ContactServices,
  principal: Principal,
  workspaceId: string,
  contactId: string,
  body: UpdateContactBody,
): Promise<Contact> {
  const { db, clock } = services;
  // A withdrawal of consent is recorded whatever the workspace's state (an inbound STOP is
  // too): a suspended client's contact who said stop must not be messaged once it is back.
  const withdrawal =
    body.opt_in_status === "opted_out" && Object.keys(body).every((k) => k === "opt_in_status");
  const workspace = withdrawal
    ? await loadWorkspaceFor(db, principal, workspaceId)
    : await loadActiveWorkspaceFor(db, principal, workspaceId);
  refuseImpossibleConsent(clock, body.opted_in_at);
  const changes: ContactChanges = body;
  return db.transaction().execute(async (trx) => {
    const writer = new ContactWriter(trx, workspace.id);
    const existing = await writer.byId(contactId);
    if (!existing) throw contactNotFound(contactId);
    if (
      optedOutLast(existing) &&
      body.opt_in_status === "opted_in" &&
      // Null too: the body's check makes a blank source null, and a blank source says nothing.
      (body.opt_in_source === undefined || body.opt_in_source === null)
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
  const visible = await visibleWorkspaceId(db, principal, workspaceId);
  // SQL text rather than the query builder: building the query cost more than running it.
  const { rows } = await sql<ContactTable>`SELECT * FROM contacts
    WHERE workspace_id = ${visible} AND id = ${contactId}`.execute(db);
  const row = rows[0];
  if (!row) throw contactNotFound(contactId);
  return toContact(row);
}

/**
 * The workspace's tags that some contact has, newest first, with how many contacts have each.
 * Spellings of one tag (`VIP`, `vip`: one for a tag filter) are one entry, named as first
 * written, so its count is what the tag filter finds.
 */
export async function listTags(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: PageQuery,
): Promise<{ data: Tag[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  // A row without folded_name (written by an instance older than it) stands alone.
  const sameTag = sql<boolean>`v.workspace_id = t.workspace_id AND v.folded_name = t.folded_name
    AND t.folded_name <> '' AND v.contact_count > 0`;
  const select = db
    .selectFrom("contact_tags as t")
    .select(["t.seq", "t.name", "t.created_at"])
    .select(
      sql<number>`CASE WHEN t.folded_name = '' THEN t.contact_count
        ELSE (SELECT CAST(sum(v.contact_count) AS INTEGER) FROM contact_tags v WHERE ${sameTag}) END`.as(
        "contact_count",
      ),
    )
    .where("t.workspace_id", "=", workspace.id)
    .where("t.contact_count", ">", 0)
    .where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM contact_tags v WHERE ${sameTag} AND v.seq < t.seq)`,
    );
  const page = await paginate(select, "t.seq", query, {
    key: { column: "t.seq", of: (row) => row.seq, seal: await cursorSeal(db) },
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
