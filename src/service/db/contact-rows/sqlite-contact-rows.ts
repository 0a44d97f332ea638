import type BetterSqlite3 from "better-sqlite3";
import type { QueryExecutorProvider } from "kysely";
import { foldedTagName } from "../../../contract/contact-rules.js";
import { sqliteHandleOf } from "../engine.js";
import type { ContactRow, ContactRows, ContactUpdate, TagLink } from "./contact-rows.js";
import type { SearchDocument } from "./contact-search.js";

/**
 * The contact writer's statements on SQLite: better-sqlite3's synchronous prepared statements on
 * the one connection the Kysely transaction runs on, a row at a time (an in-process call costs
 * microseconds, less than building one large statement). The search entry is a row of the FTS5
 * table `contacts_fts` whose rowid is the contact's seq.
 */

interface Statements {
  byPhone: BetterSqlite3.Statement<[string, string], ContactRow>;
  byId: BetterSqlite3.Statement<[string, string], ContactRow>;
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
        `INSERT INTO contact_tags (workspace_id, name, folded_name, contact_count, created_at)
         VALUES (?, ?, ?, 0, ?)`,
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

function index(s: Statements, seq: number, doc: SearchDocument): void {
  s.searchInsert.run(seq, doc.name, doc.phone, doc.email);
}

/** The SQLite statements behind a Kysely transaction (or handle) on SQLite. */
export function sqliteContactRows(trx: QueryExecutorProvider): ContactRows {
  const s = statementsOf(sqliteHandleOf(trx));
  const links = (statement: BetterSqlite3.Statement, list: readonly TagLink[]) => {
    const changed = new Map<number, number>();
    for (const { tagSeq, contactSeq } of list) {
      if (statement.run(tagSeq, contactSeq).changes > 0) {
        changed.set(tagSeq, (changed.get(tagSeq) ?? 0) + 1);
      }
    }
    return changed;
  };
  return {
    async find(workspaceId, by, keys) {
      const statement = by === "phone" ? s.byPhone : s.byId;
      const found: ContactRow[] = [];
      for (const key of keys) {
        const row = statement.get(workspaceId, key);
        if (row) found.push(row);
      }
      return found;
    },
    async counted(workspaceId) {
      return s.count.get(workspaceId)?.total ?? 0;
    },
    async insert(contacts) {
      for (const { row, search } of contacts) {
        row.seq = Number(
          s.insert.run(
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
        index(s, row.seq, search);
      }
    },
    async update(updates: readonly ContactUpdate[]) {
      for (const { row, search } of updates) {
        s.update.run(
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
        if (search) {
          s.searchDelete.run(row.seq);
          index(s, row.seq, search);
        }
      }
    },
    async tags(workspaceId, names, now) {
      const seqs = new Map<string, number>();
      for (const name of names) {
        seqs.set(
          name,
          s.tagByName.get(workspaceId, name)?.seq ??
            Number(s.tagInsert.run(workspaceId, name, foldedTagName(name), now).lastInsertRowid),
        );
      }
      return seqs;
    },
    async link(list) {
      return links(s.link, list);
    },
    async unlink(list) {
      return links(s.unlink, list);
    },
    async count(workspaceId, created, linked) {
      for (const [status, n] of created) s.countAdd.run(workspaceId, status, n);
      for (const [tagSeq, n] of linked) if (n !== 0) s.tagCountAdd.run(n, tagSeq);
    },
  };
}
