import { type QueryExecutorProvider, sql } from "kysely";
import { engineOf } from "../engine.js";
import type { ContactTable } from "../tables/contacts.js";
import type { SearchDocument } from "./contact-search.js";
import { postgresContactRows } from "./postgres-contact-rows.js";
import { sqliteContactRows } from "./sqlite-contact-rows.js";

/**
 * The statements of the contact writer (domain/contact-store.ts), one implementation per engine:
 * the rules (consent, tags, counters) are the writer's; these only read and write rows, a
 * transaction's batch at a time. SQLite runs its synchronous prepared statements row by row
 * (cheap in-process calls); PostgreSQL sends each step as one set-based statement over arrays,
 * so a batch costs a handful of round trips whatever its size.
 */

/** A contact row as stored (without PostgreSQL's search column). */
export type ContactRow = ContactTable;

/** A change of tag links: `tagSeq` added to or removed from `contactSeq`. */
export interface TagLink {
  tagSeq: number;
  contactSeq: number;
}

/** A new contact and its search entry. */
export interface NewContact {
  row: ContactRow;
  search: SearchDocument;
}

/** A row to update, and its new search entry where the name or email changed (else null). */
export interface ContactUpdate {
  row: ContactRow;
  search: SearchDocument | null;
}

export interface ContactRows {
  /**
   * The workspace's contacts with these phones (or ids). On PostgreSQL they stay locked until the
   * transaction ends, so the writer's read-then-write is never raced by another instance.
   */
  find(workspaceId: string, by: "phone" | "id", keys: readonly string[]): Promise<ContactRow[]>;
  /** Contacts in the workspace by the counters (new ones of this transaction not yet flushed excluded). */
  counted(workspaceId: string): Promise<number>;
  /** Inserts new contacts with their search entries and sets each row's `seq`. */
  insert(contacts: readonly NewContact[]): Promise<void>;
  /** Writes changed contacts by `seq`, and the search entries given. */
  update(updates: readonly ContactUpdate[]): Promise<void>;
  /** The tags' seqs by name, creating the missing ones (with contact_count 0). */
  tags(workspaceId: string, names: readonly string[], now: string): Promise<Map<string, number>>;
  /** Adds links; answers how many were new per tag. */
  link(links: readonly TagLink[]): Promise<Map<number, number>>;
  /** Removes links; answers how many existed per tag. */
  unlink(links: readonly TagLink[]): Promise<Map<number, number>>;
  /** Adds new contacts per opt-in status and link changes per tag to the counters. */
  count(
    workspaceId: string,
    created: ReadonlyMap<string, number>,
    linked: ReadonlyMap<number, number>,
  ): Promise<void>;
}

/** The contact statements of the engine behind a transaction (or database handle). */
export function contactRowsOf(trx: QueryExecutorProvider): ContactRows {
  return engineOf(trx) === "postgres" ? postgresContactRows(trx) : sqliteContactRows(trx);
}

/**
 * Brings the planner's statistics of the contacts up to date, where the engine plans by them:
 * PostgreSQL, with statistics taken before a bulk write filled a workspace, looked up each of a
 * batch's phones by scanning the whole workspace through another index (1.9 s a batch at 20,000
 * contacts, instead of 2 ms by the unique phone index), so a large import grew quadratic until
 * autovacuum's next ANALYZE. SQLite plans without them here: nothing to do.
 */
export async function refreshContactStatistics(db: QueryExecutorProvider): Promise<void> {
  // A table this role does not own is skipped with a warning, not an error.
  if (engineOf(db) === "postgres") await sql`ANALYZE contacts`.execute(db);
}

/** Adds `n` to a per-key tally. */
export function tally<K>(counts: Map<K, number>, key: K, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}
