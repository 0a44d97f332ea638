import type BetterSqlite3 from "better-sqlite3";
import { contactLimits } from "../../contract/contact-rules.js";
import type { ContactTable } from "../db/tables/contacts.js";
import { searchDocument } from "./contact-search.js";
import { newId } from "./ids.js";

/**
 * Every write to contacts goes through here: the row, its search entry and its tag links change
 * together, with synchronous better-sqlite3 statements so a bulk import costs little per row.
 * Callers run it inside a transaction (Kysely's, on the same connection). The counters of new
 * contacts per opt-in status and of contacts per tag are kept here rather than by per-row
 * triggers (which halved an import's rate): after each write, or in a batch once per
 * transaction with `flush()`. Status changes of existing contacts are counted by a trigger.
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
    const merged = JSON.parse(row.custom_fields) as Record<string, string>;
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
  return { row, problem: null };
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

interface Statements {
  byPhone: BetterSqlite3.Statement<[string, string], Row>;
  byId: BetterSqlite3.Statement<[string, string], Row>;
  insert: BetterSqlite3.Statement;
  update: BetterSqlite3.Statement;
  searchInsert: BetterSqlite3.Statement;
  searchDelete: BetterSqlite3.Statement;
  tagByName: BetterSqlite3.Statement<[string, string], { seq: number }>;
  tagInsert: BetterSqlite3.Statement;
  link: BetterSqlite3.Statement;
  unlink: BetterSqlite3.Statement;
  count: BetterSqlite3.Statement<[string], { total: number | null }>;
  countAdd: BetterSqlite3.Statement;
  tagCountAdd: BetterSqlite3.Statement;
}

const prepared = new WeakMap<BetterSqlite3.Database, Statements>();

function statementsOf(sqlite: BetterSqlite3.Database): Statements {
  let statements = prepared.get(sqlite);
  if (!statements) {
    statements = {
      byPhone: sqlite.prepare("SELECT * FROM contacts WHERE workspace_id = ? AND phone = ?"),
      byId: sqlite.prepare("SELECT * FROM contacts WHERE workspace_id = ? AND id = ?"),
      insert: sqlite.prepare(
        `INSERT INTO contacts (id, workspace_id, phone, first_name, last_name, email, tags,
          custom_fields, opt_in_status, opt_in_source, opted_in_at, opted_out_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: sqlite.prepare(
        `UPDATE contacts SET first_name = ?, last_name = ?, email = ?, tags = ?, custom_fields = ?,
          opt_in_status = ?, opt_in_source = ?, opted_in_at = ?, opted_out_at = ?, updated_at = ?
         WHERE seq = ?`,
      ),
      searchInsert: sqlite.prepare(
        "INSERT INTO contacts_fts (rowid, name, phone, email) VALUES (?, ?, ?, ?)",
      ),
      searchDelete: sqlite.prepare("DELETE FROM contacts_fts WHERE rowid = ?"),
      tagByName: sqlite.prepare("SELECT seq FROM contact_tags WHERE workspace_id = ? AND name = ?"),
      tagInsert: sqlite.prepare(
        "INSERT INTO contact_tags (workspace_id, name, contact_count, created_at) VALUES (?, ?, 0, ?)",
      ),
      link: sqlite.prepare(
        "INSERT OR IGNORE INTO contact_tag_links (tag_seq, contact_seq) VALUES (?, ?)",
      ),
      unlink: sqlite.prepare("DELETE FROM contact_tag_links WHERE tag_seq = ? AND contact_seq = ?"),
      count: sqlite.prepare(
        "SELECT sum(count) AS total FROM contact_counts WHERE workspace_id = ?",
      ),
      countAdd: sqlite.prepare(
        `INSERT INTO contact_counts (workspace_id, opt_in_status, count) VALUES (?, ?, ?)
         ON CONFLICT (workspace_id, opt_in_status) DO UPDATE SET count = count + excluded.count`,
      ),
      tagCountAdd: sqlite.prepare(
        "UPDATE contact_tags SET contact_count = contact_count + ? WHERE seq = ?",
      ),
    };
    prepared.set(sqlite, statements);
  }
  return statements;
}

/**
 * The contact writes of one transaction. Tag ids are remembered only for its lifetime, since a
 * rolled-back transaction takes the tags it created with it.
 */
export class ContactWriter {
  private readonly s: Statements;
  private readonly tagSeqs = new Map<string, number>();
  /** New contacts per opt-in status, not yet added to contact_counts. */
  private readonly created = new Map<string, number>();
  /** Links added (or removed, negative) per tag, not yet added to contact_tags. */
  private readonly linked = new Map<number, number>();

  /**
   * With `batch`, counters are written by `flush()`, which the caller runs before its
   * transaction commits; otherwise after every write.
   */
  constructor(
    sqlite: BetterSqlite3.Database,
    private readonly workspaceId: string,
    private readonly options: { batch?: boolean } = {},
  ) {
    this.s = statementsOf(sqlite);
  }

  /** Writes the counters of the writes so far (a batch's, once, before its commit). */
  flush(): void {
    for (const [status, count] of this.created) {
      this.s.countAdd.run(this.workspaceId, status, count);
    }
    this.created.clear();
    for (const [tagSeq, count] of this.linked) {
      if (count !== 0) this.s.tagCountAdd.run(count, tagSeq);
    }
    this.linked.clear();
  }

  private written(): void {
    if (!this.options.batch) this.flush();
  }

  byPhone(phone: string): Row | undefined {
    return this.s.byPhone.get(this.workspaceId, phone);
  }

  byId(id: string): Row | undefined {
    return this.s.byId.get(this.workspaceId, id);
  }

  /** Contacts in the workspace now (from the counters the triggers keep). */
  contactCount(): number {
    let pending = 0;
    for (const count of this.created.values()) pending += count;
    return (this.s.count.get(this.workspaceId)?.total ?? 0) + pending;
  }

  /** Creates a contact; the change must have passed the field checks. */
  create(phone: string, changes: ContactChanges, context: WriteContext): Row | ChangeProblem {
    const base = {
      seq: 0,
      id: newId("ct"),
      workspace_id: this.workspaceId,
      phone,
      created_at: context.now,
    };
    const next = nextRow(null, base, changes, context);
    if (next.problem) return next.problem;
    const row = next.row;
    row.seq = Number(
      this.s.insert.run(
        row.id,
        row.workspace_id,
        row.phone,
        row.first_name,
        row.last_name,
        row.email,
        row.tags,
        row.custom_fields,
        row.opt_in_status,
        row.opt_in_source,
        row.opted_in_at,
        row.opted_out_at,
        row.created_at,
        row.updated_at,
      ).lastInsertRowid,
    );
    const seq = row.seq;
    this.index(row);
    this.relink(seq, [], changes.tags ?? [], context.now);
    this.created.set(row.opt_in_status, (this.created.get(row.opt_in_status) ?? 0) + 1);
    this.written();
    return row;
  }

  /** Applies a change to an existing contact; writes nothing when nothing changes. */
  update(existing: Row, changes: ContactChanges, context: WriteContext): Row | ChangeProblem {
    const next = nextRow(existing, existing, changes, context);
    if (next.problem) return next.problem;
    const row = next.row;
    if (sameRow(existing, row)) return existing;
    row.updated_at = context.now;
    this.s.update.run(
      row.first_name,
      row.last_name,
      row.email,
      row.tags,
      row.custom_fields,
      row.opt_in_status,
      row.opt_in_source,
      row.opted_in_at,
      row.opted_out_at,
      row.updated_at,
      row.seq,
    );
    if (searchChanged(existing, row)) {
      this.s.searchDelete.run(row.seq);
      this.index(row);
    }
    if (changes.tags !== undefined && existing.tags !== row.tags) {
      this.relink(row.seq, JSON.parse(existing.tags) as string[], changes.tags, context.now);
      this.written();
    }
    return row;
  }

  private index(row: Row): void {
    const doc = searchDocument(row);
    this.s.searchInsert.run(row.seq, doc.name, doc.phone, doc.email);
  }

  private relink(
    contactSeq: number,
    before: readonly string[],
    after: readonly string[],
    now: string,
  ): void {
    const kept = new Set(after);
    for (const name of before) {
      if (kept.has(name)) continue;
      const tagSeq = this.tagSeq(name, now);
      if (this.s.unlink.run(tagSeq, contactSeq).changes > 0) {
        this.linked.set(tagSeq, (this.linked.get(tagSeq) ?? 0) - 1);
      }
    }
    const had = new Set(before);
    for (const name of after) {
      if (had.has(name)) continue;
      const tagSeq = this.tagSeq(name, now);
      if (this.s.link.run(tagSeq, contactSeq).changes > 0) {
        this.linked.set(tagSeq, (this.linked.get(tagSeq) ?? 0) + 1);
      }
    }
  }

  private tagSeq(name: string, now: string): number {
    let seq = this.tagSeqs.get(name);
    if (seq === undefined) {
      seq =
        this.s.tagByName.get(this.workspaceId, name)?.seq ??
        Number(this.s.tagInsert.run(this.workspaceId, name, now).lastInsertRowid);
      this.tagSeqs.set(name, seq);
    }
    return seq;
  }
}

/** Why an opted-out contact stays opted out: the notice an upsert answers with. */
export const optOutKeptMessage =
  "the contact opted out and stays opted out: only the contact (START) or a PATCH giving opted_in with an opt_in_source re-subscribes them";

/**
 * The consent rule of upserts and imports: a change saying `opted_in` never re-subscribes a
 * contact who opted out (by STOP, the provider or a PATCH). Returns the change without its
 * opt-in fields in that case, and whether the opt-out was kept.
 */
export function keepOptOut(
  existing: Row | undefined,
  changes: ContactChanges,
): { changes: ContactChanges; kept: boolean } {
  if (existing?.opt_in_status !== "opted_out" || changes.opt_in_status !== "opted_in") {
    return { changes, kept: false };
  }
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

/** Whether a write result is a problem rather than a row. */
export function isProblem(result: Row | ChangeProblem): result is ChangeProblem {
  return !("seq" in result);
}
