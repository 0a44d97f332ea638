import { contactLimits } from "../../contract/contact-rules.js";
import {
  type ContactRows,
  type ContactUpdate,
  contactRowsOf,
  type NewContact,
  type TagLink,
} from "../db/contact-rows/contact-rows.js";
import { type SearchDocument, searchDocument } from "../db/contact-rows/contact-search.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import type { ContactTable } from "../db/tables/contacts.js";
import { newId } from "./ids.js";

/**
 * Every write to contacts goes through here, on either engine: the consent rules, the tag lists
 * and the counters are decided here once; the row, its search entry and its tag links are written
 * together by the engine's statements (db/contact-rows), batch-wise, inside the caller's
 * transaction. The counters of new contacts per opt-in status and of contacts per tag are kept
 * here rather than by per-row triggers (which halved an import's rate), once per flush. Status
 * changes of existing contacts are counted by a trigger.
 */

export type OptIn = "opted_in" | "not_set" | "opted_out";

/** What a write changes; an absent field stays as it is (or takes its default on create). */
export interface ContactChanges {
  first_name?: string | null | undefined;
  last_name?: string | null | undefined;
  email?: string | null | undefined;
  /** Replaces the tag list. */
  tags?: string[] | undefined;
  /** Merged into the custom fields; null removes a key. */
  custom_fields?: Record<string, string | null> | undefined;
  opt_in_status?: OptIn | undefined;
  opt_in_source?: string | null | undefined;
  opted_in_at?: string | undefined;
  opted_out_at?: string | undefined;
}

export interface WriteContext {
  /** Now, as ISO 8601 UTC to the second. */
  now: string;
  /** The source recorded when a contact opts in without one: `api` or `import:<id>`. */
  source: string;
}

/** A problem with the result of a change (beyond the field checks of the contract). */
export interface ChangeProblem {
  field: string;
  message: string;
}

type Row = ContactTable;

/**
 * The row a change leads to, from `existing` (null for a new contact), with the consent rules:
 * an omitted status is not_set for a new contact and unchanged for an existing one; becoming
 * opted_in records opted_in_at (now unless given) and the source; becoming opted_out records
 * opted_out_at.
 */
export function nextRow(
  existing: Row | null,
  base: Pick<Row, "seq" | "id" | "workspace_id" | "phone" | "created_at">,
  changes: ContactChanges,
  context: WriteContext,
): { row: Row; problem: null } | { row: null; problem: ChangeProblem } {
  // Written out field by field: a spread of this many fields makes V8 fall back to a slow
  // object shape, which costs more than the SQL in a bulk import.
  const row: Row = {
    seq: base.seq,
    id: base.id,
    workspace_id: base.workspace_id,
    phone: base.phone,
    first_name: existing ? existing.first_name : null,
    last_name: existing ? existing.last_name : null,
    email: existing ? existing.email : null,
    tags: existing ? existing.tags : "[]",
    custom_fields: existing ? existing.custom_fields : "{}",
    opt_in_status: existing ? existing.opt_in_status : "not_set",
    opt_in_source: existing ? existing.opt_in_source : null,
    opted_in_at: existing ? existing.opted_in_at : null,
    opted_out_at: existing ? existing.opted_out_at : null,
    created_at: base.created_at,
    updated_at: existing ? existing.updated_at : base.created_at,
  };
  if (changes.first_name !== undefined) row.first_name = changes.first_name;
  if (changes.last_name !== undefined) row.last_name = changes.last_name;
  if (changes.email !== undefined) row.email = changes.email;
  if (changes.tags !== undefined) row.tags = JSON.stringify(changes.tags);
  if (changes.custom_fields !== undefined) {
    const merged = parseJson(row.custom_fields);
    for (const [key, value] of Object.entries(changes.custom_fields)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    if (Object.keys(merged).length > contactLimits.customFieldsPerContact) {
      return {
        row: null,
        problem: {
          field: "custom_fields",
          message: `a contact has at most ${contactLimits.customFieldsPerContact} custom fields`,
        },
      };
    }
    row.custom_fields = JSON.stringify(merged);
  }

  const before = existing?.opt_in_status ?? null;
  const status = changes.opt_in_status ?? before ?? "not_set";
  const consentProblem =
    consentRecordProblem(existing, changes) ?? withdrawnConsentProblem(existing, status, changes);
  if (consentProblem) return { row: null, problem: consentProblem };
  row.opt_in_status = status;
  if (changes.opt_in_source !== undefined) row.opt_in_source = changes.opt_in_source;
  if (status === "opted_in" && before !== "opted_in") {
    row.opted_in_at = changes.opted_in_at ?? context.now;
    if (changes.opt_in_source === undefined) row.opt_in_source = context.source;
  } else if (changes.opted_in_at !== undefined) {
    row.opted_in_at = changes.opted_in_at;
  }
  if (status === "opted_out" && before !== "opted_out") {
    row.opted_out_at = changes.opted_out_at ?? context.now;
  } else if (changes.opted_out_at !== undefined) {
    row.opted_out_at = changes.opted_out_at;
  }
  const withdrawal = withdrawalEndedProblem(existing, row, changes);
  if (withdrawal) return { row: null, problem: withdrawal };
  return { row, problem: null };
}

/**
 * Why a change would end a contact's withdrawal of consent without opting them in, or null: a
 * contact whose last word was an opt-out keeps it through any change that leaves them opted out
 * or not_set, whatever times it gives (an opt-in time moved after the opt-out, an opt-out time
 * moved before the opt-in), so no later upsert can take them for re-subscribable.
 */
function withdrawalEndedProblem(
  existing: Row | null,
  row: Row,
  changes: ContactChanges,
): ChangeProblem | null {
  if (!existing || row.opt_in_status === "opted_in") return null;
  if (!optedOutLast(existing) || optedOutLast(row)) return null;
  const field =
    changes.opted_in_at !== undefined
      ? "opted_in_at"
      : changes.opted_out_at !== undefined
        ? "opted_out_at"
        : "opt_in_status";
  return {
    field,
    message: `would make the consent this contact withdrew (opted out ${existing.opted_out_at}) count as newer than their opt-out (opted_in_at ${row.opted_in_at}, opted_out_at ${row.opted_out_at}): to re-subscribe them, give opt_in_status opted_in with an opt_in_source`,
  };
}

/**
 * Why a consent record (when and where consent was given) cannot be written as asked, or null:
 * a contact whose last word was an opt-out keeps the record of the consent they withdrew unless
 * the change names their status (a PATCH re-subscribing them, an export's row). Upserts and
 * imports leave it as it is before this is asked (keepOptOut). Another not_set contact may carry
 * one: an earlier consent, as an export writes it for a contact moved back to not_set.
 */
function consentRecordProblem(existing: Row | null, changes: ContactChanges): ChangeProblem | null {
  if (!existing || !optedOutLast(existing)) return null;
  // opted_in rewrites it by design (a sourced re-subscribe); opted_out restates the opt-out.
  if (changes.opt_in_status === "opted_in" || changes.opt_in_status === "opted_out") return null;
  const field =
    changes.opted_in_at !== undefined
      ? "opted_in_at"
      : changes.opt_in_source !== undefined
        ? "opt_in_source"
        : null;
  if (field === null) return null;
  return {
    field,
    message:
      "is the record of the consent this contact withdrew (opted out): to re-subscribe them, give opt_in_status opted_in with an opt_in_source",
  };
}

/**
 * Why an opted-in contact's consent time cannot be taken, or null: consent given before the
 * contact's last opt-out is the consent they withdrew, whatever their status since (a START,
 * then not_set, then an upsert must not bring it back either).
 */
function withdrawnConsentProblem(
  existing: Row | null,
  status: string,
  changes: ContactChanges,
): ChangeProblem | null {
  const optedOutAt = existing?.opted_out_at;
  if (status !== "opted_in" || !changes.opted_in_at || !optedOutAt) return null;
  // Refused only when both times read as times: an unreadable stored one refuses nothing.
  if (!(Date.parse(changes.opted_in_at) < Date.parse(optedOutAt))) return null;
  return {
    field: "opted_in_at",
    message: `is earlier than this contact's opt-out (${optedOutAt}): consent given before they opted out was withdrawn; give the time of the new consent, or omit it for now`,
  };
}

const writableColumns = [
  "first_name",
  "last_name",
  "email",
  "tags",
  "custom_fields",
  "opt_in_status",
  "opt_in_source",
  "opted_in_at",
  "opted_out_at",
] as const;

function sameRow(a: Row, b: Row): boolean {
  return writableColumns.every((c) => a[c] === b[c]);
}

function searchChanged(a: Row, b: Row): boolean {
  return a.first_name !== b.first_name || a.last_name !== b.last_name || a.email !== b.email;
}

/** A contact written in this transaction and not yet flushed: what it was, what it becomes. */
interface Pending {
  /** The stored row before this transaction's changes; null for a new contact. */
  before: Row | null;
  row: Row;
  /** The new contact's search entry, when the caller computed it (see `create`). */
  search?: SearchDocument | undefined;
}

/**
 * The contact writes of one transaction. Changes are collected and written by `flush()`, which
 * the caller awaits before its transaction commits: on SQLite as synchronous statements a row at
 * a time, on PostgreSQL as one set-based statement per step (db/contact-rows). A contact changed
 * twice before a flush (a phone twice in an import batch) is written once, as it ends. Tag ids
 * are remembered for the transaction's lifetime (a rolled-back transaction takes the tags it
 * created with it), plus those the caller knows committed.
 */
export class ContactWriter {
  private readonly rows: ContactRows;
  private readonly tagSeqs = new Map<string, number>();
  /** Contacts read or written in this transaction, by phone, as they are now. */
  private readonly known = new Map<string, Row>();
  /** Changes not yet written, by phone, in the order they were first made. */
  private readonly pending = new Map<string, Pending>();
  private now = "";

  /**
   * `committedTags`: tag seqs by name that committed transactions created or read (tags are never
   * deleted), so that a job writing batch after batch does not look its tags up for each one.
   */
  constructor(
    trx: Db,
    private readonly workspaceId: string,
    committedTags?: ReadonlyMap<string, number>,
  ) {
    this.rows = contactRowsOf(trx);
    if (committedTags) for (const [name, seq] of committedTags) this.tagSeqs.set(name, seq);
  }

  /** The tag seqs this transaction knows: committed ones once it has committed. */
  get tags(): ReadonlyMap<string, number> {
    return this.tagSeqs;
  }

  /**
   * Reads the contacts with these phones (locked until the transaction ends on PostgreSQL), so
   * that `current` answers for them: one read for a whole import batch.
   */
  async load(phones: readonly string[]): Promise<void> {
    const missing = [...new Set(phones)].filter((phone) => !this.known.has(phone));
    for (const row of await this.rows.find(this.workspaceId, "phone", missing)) {
      this.known.set(row.phone, row);
    }
  }

  /** The contact with this phone as this transaction sees it, among those `load` read. */
  current(phone: string): Row | undefined {
    return this.known.get(phone);
  }

  /** The contact with this phone (locked on PostgreSQL until the transaction ends). */
  async byPhone(phone: string): Promise<Row | undefined> {
    await this.load([phone]);
    return this.current(phone);
  }

  /** The contact with this id (locked on PostgreSQL until the transaction ends). */
  async byId(id: string): Promise<Row | undefined> {
    for (const row of this.known.values()) if (row.id === id) return row;
    const [row] = await this.rows.find(this.workspaceId, "id", [id]);
    if (row) this.known.set(row.phone, row);
    return row;
  }

  /** Contacts in the workspace now, this transaction's new ones included (from the counters). */
  async contactCount(): Promise<number> {
    let pending = 0;
    for (const change of this.pending.values()) if (change.before === null) pending += 1;
    return (await this.rows.counted(this.workspaceId)) + pending;
  }

  /**
   * Creates a contact (written by the next flush, which sets its `seq`); the change must have
   * passed the field checks. `search`: its search entry, if the caller has it already
   * (newContactSearchDocument of the same fields; an import's checker thread computes it).
   */
  create(
    phone: string,
    changes: ContactChanges,
    context: WriteContext,
    search?: SearchDocument,
  ): Row | ChangeProblem {
    const base = {
      seq: 0,
      id: newId("ct"),
      workspace_id: this.workspaceId,
      phone,
      created_at: context.now,
    };
    const next = nextRow(null, base, changes, context);
    if (next.problem) return next.problem;
    this.now = context.now;
    this.known.set(phone, next.row);
    this.pending.set(phone, { before: null, row: next.row, search });
    return next.row;
  }

  /** Applies a change to an existing contact (written by the next flush); none when nothing changes. */
  update(existing: Row, changes: ContactChanges, context: WriteContext): Row | ChangeProblem {
    const next = nextRow(existing, existing, changes, context);
    if (next.problem) return next.problem;
    const row = next.row;
    if (sameRow(existing, row)) return existing;
    row.updated_at = context.now;
    this.now = context.now;
    const change = this.pending.get(row.phone);
    if (change) {
      change.row = row;
      change.search = undefined;
    } else this.pending.set(row.phone, { before: existing, row });
    this.known.set(row.phone, row);
    return row;
  }

  /**
   * Writes the changes so far: rows, search entries, tag links, and the counters of new contacts
   * per opt-in status and of contacts per tag (status changes of existing contacts are counted
   * by a trigger). Kept out of per-row triggers, which halved an import's rate.
   */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const changes = [...this.pending.values()];
    this.pending.clear();
    const inserts: NewContact[] = [];
    const updates: ContactUpdate[] = [];
    const created = new Map<string, number>();
    for (const { before, row, search } of changes) {
      if (before === null) {
        inserts.push({ row, search: search ?? searchDocument(row) });
        created.set(row.opt_in_status, (created.get(row.opt_in_status) ?? 0) + 1);
      } else if (!sameRow(before, row)) {
        updates.push({ row, search: searchChanged(before, row) ? searchDocument(row) : null });
      }
    }
    await this.rows.insert(inserts);
    await this.rows.update(updates);

    // Tag links follow the tag lists: names dropped are unlinked, names added linked.
    const added: Array<[number, string]> = [];
    const dropped: Array<[number, string]> = [];
    for (const { before, row } of changes) {
      if (before !== null && before.tags === row.tags) continue;
      const had = before === null ? [] : parseJson(before.tags);
      const has = parseJson(row.tags);
      const kept = new Set(has);
      for (const name of had) if (!kept.has(name)) dropped.push([row.seq, name]);
      const old = new Set(had);
      for (const name of has) if (!old.has(name)) added.push([row.seq, name]);
    }
    const linked = new Map<number, number>();
    if (added.length > 0 || dropped.length > 0) {
      const unknown = new Set<string>();
      for (const [, name] of dropped) if (!this.tagSeqs.has(name)) unknown.add(name);
      for (const [, name] of added) if (!this.tagSeqs.has(name)) unknown.add(name);
      if (unknown.size > 0) {
        const found = await this.rows.tags(this.workspaceId, [...unknown], this.now);
        for (const [name, seq] of found) this.tagSeqs.set(name, seq);
      }
      const links = (list: Array<[number, string]>): TagLink[] =>
        list.map(([contactSeq, name]) => ({ tagSeq: this.tagSeqs.get(name) ?? 0, contactSeq }));
      for (const [tagSeq, n] of await this.rows.unlink(links(dropped))) linked.set(tagSeq, -n);
      for (const [tagSeq, n] of await this.rows.link(links(added))) {
        linked.set(tagSeq, (linked.get(tagSeq) ?? 0) + n);
      }
    }
    await this.rows.count(this.workspaceId, created, linked);
  }
}

/** Why an upsert left a contact's consent as it was: the notice it answers with. */
export function optOutKeptMessage(existing: Pick<Row, "opt_in_status">): string {
  const now =
    existing.opt_in_status === "opted_out"
      ? "the contact opted out and stays opted out"
      : "the contact opted out and was set to not_set since; an upsert or import does not re-subscribe them";
  return `${now}: only the contact (START) or a PATCH giving opted_in with an opt_in_source re-subscribes them`;
}

/**
 * Whether the contact's last word on consent was an opt-out: opted out, or moved to not_set by
 * a PATCH since (not by a START, which records a later opt-in). Such a contact is re-subscribed
 * only by themselves or by a PATCH naming where the new consent came from.
 */
export function optedOutLast(
  row: Pick<Row, "opt_in_status" | "opted_in_at" | "opted_out_at">,
): boolean {
  if (row.opt_in_status === "opted_out") return true;
  if (row.opt_in_status !== "not_set" || row.opted_out_at === null) return false;
  // Both are written UTC to the second, so they compare as text. Within one second the order
  // is unknown, and the opt-out is taken as the later: consent is never assumed.
  return row.opted_in_at === null || row.opted_in_at <= row.opted_out_at;
}

/**
 * The consent rule of upserts and imports: a change saying `opted_in` never re-subscribes a
 * contact whose last word was an opt-out (by STOP, the provider or a PATCH), nor does `not_set`
 * undo an opt-out (it would only take two steps to re-subscribe them), nor does a change giving
 * an opt-in time or source rewrite the record of the consent withdrawn. Returns the change
 * without its opt-in fields in those cases (the rest of it applies), and whether it was kept.
 */
export function keepOptOut(
  existing: Row | undefined,
  changes: ContactChanges,
): { changes: ContactChanges; kept: boolean } {
  if (!existing || !optedOutLast(existing) || changes.opt_in_status === "opted_out") {
    return { changes, kept: false };
  }
  const resubscribes =
    changes.opt_in_status === "opted_in" ||
    (changes.opt_in_status === "not_set" && existing.opt_in_status === "opted_out");
  // Clearing counts too: an empty source would erase where the withdrawn consent came from.
  const rewritesRecord = changes.opted_in_at !== undefined || changes.opt_in_source !== undefined;
  if (!resubscribes && !rewritesRecord) return { changes, kept: false };
  return {
    changes: {
      ...changes,
      opt_in_status: undefined,
      opt_in_source: undefined,
      opted_in_at: undefined,
    },
    kept: true,
  };
}

/**
 * What an import row may still change of a contact it would skip (`duplicate_handling: skip`):
 * skip leaves the record as it is, but for a withdrawal of consent, recorded as a STOP is
 * (messaging someone who said no risks the number). Undefined when there is none, or when the
 * row's opt-out is older than the consent the contact gave since (an old list imported again
 * must not unsubscribe someone who said START later).
 */
export function withdrawalOf(existing: Row, changes: ContactChanges): ContactChanges | undefined {
  if (changes.opt_in_status !== "opted_out" || existing.opt_in_status === "opted_out") {
    return undefined;
  }
  const { opted_out_at } = changes;
  if (
    opted_out_at !== undefined &&
    existing.opted_in_at !== null &&
    Date.parse(opted_out_at) < Date.parse(existing.opted_in_at)
  ) {
    return undefined;
  }
  return { opt_in_status: "opted_out", opted_out_at };
}

/** Whether a write result is a problem rather than a row. */
export function isProblem(result: Row | ChangeProblem): result is ChangeProblem {
  return !("seq" in result);
}
