import { type Kysely, sql } from "kysely";
import { engineOf } from "../engine.js";

/**
 * Contacts, tags, consent counts, the search index and contact imports.
 *
 * Sized for a million contacts per workspace: lists walk `(workspace_id, seq)` (an index on
 * `workspace_id` ends with the rowid `seq`), filters have their own indexes, totals come from
 * counters that triggers keep exact in the same transaction as the change, and search is an FTS5
 * index whose rowid is `seq`, so a page of matches is read newest first without sorting.
 * PostgreSQL has its own statements for the same tables (see postgresStatements).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = engineOf(db) === "postgres" ? postgresStatements : sqliteStatements;
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** The import records: the same SQL on both engines. */
const contactImportStatements = [
  `CREATE TABLE contact_imports (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      status TEXT NOT NULL,
      duplicate_handling TEXT NOT NULL,
      default_country TEXT,
      total_rows INTEGER NOT NULL,
      processed_rows INTEGER NOT NULL DEFAULT 0,
      created INTEGER NOT NULL DEFAULT 0,
      updated INTEGER NOT NULL DEFAULT 0,
      skipped INTEGER NOT NULL DEFAULT 0,
      error_count INTEGER NOT NULL DEFAULT 0,
      ignored_columns TEXT NOT NULL DEFAULT '[]',
      csv_bytes INTEGER NOT NULL,
      failure_reason TEXT,
      created_at TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT
    )`,
  "CREATE INDEX contact_imports_by_workspace ON contact_imports (workspace_id, id)",
];

const sqliteStatements = [
  `CREATE TABLE contacts (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      phone TEXT NOT NULL,
      first_name TEXT,
      last_name TEXT,
      email TEXT,
      tags TEXT NOT NULL DEFAULT '[]',
      custom_fields TEXT NOT NULL DEFAULT '{}',
      opt_in_status TEXT NOT NULL,
      opt_in_source TEXT,
      opted_in_at TEXT,
      opted_out_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
  "CREATE UNIQUE INDEX contacts_by_phone ON contacts (workspace_id, phone)",
  // Both end with the rowid (seq): the order of every contact list.
  "CREATE INDEX contacts_by_workspace ON contacts (workspace_id)",
  "CREATE INDEX contacts_by_status ON contacts (workspace_id, opt_in_status)",

  `CREATE TABLE contact_tags (
      seq INTEGER PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id),
      name TEXT NOT NULL,
      contact_count INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`,
  "CREATE UNIQUE INDEX contact_tags_by_name ON contact_tags (workspace_id, name)",
  // No foreign keys: contacts and tags are never deleted, and the checks would cost every insert.
  `CREATE TABLE contact_tag_links (
      tag_seq INTEGER NOT NULL,
      contact_seq INTEGER NOT NULL,
      PRIMARY KEY (tag_seq, contact_seq)
    ) WITHOUT ROWID`,
  `CREATE TRIGGER contact_tag_links_added AFTER INSERT ON contact_tag_links BEGIN
      UPDATE contact_tags SET contact_count = contact_count + 1 WHERE seq = NEW.tag_seq;
    END`,
  `CREATE TRIGGER contact_tag_links_removed AFTER DELETE ON contact_tag_links BEGIN
      UPDATE contact_tags SET contact_count = contact_count - 1 WHERE seq = OLD.tag_seq;
    END`,

  `CREATE TABLE contact_counts (
      workspace_id TEXT NOT NULL,
      opt_in_status TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (workspace_id, opt_in_status)
    ) WITHOUT ROWID`,
  `CREATE TRIGGER contacts_counted AFTER INSERT ON contacts BEGIN
      INSERT INTO contact_counts (workspace_id, opt_in_status, count)
        VALUES (NEW.workspace_id, NEW.opt_in_status, 1)
        ON CONFLICT (workspace_id, opt_in_status) DO UPDATE SET count = count + 1;
    END`,
  `CREATE TRIGGER contacts_recounted AFTER UPDATE OF opt_in_status ON contacts
      WHEN OLD.opt_in_status <> NEW.opt_in_status BEGIN
      UPDATE contact_counts SET count = count - 1
        WHERE workspace_id = OLD.workspace_id AND opt_in_status = OLD.opt_in_status;
      INSERT INTO contact_counts (workspace_id, opt_in_status, count)
        VALUES (NEW.workspace_id, NEW.opt_in_status, 1)
        ON CONFLICT (workspace_id, opt_in_status) DO UPDATE SET count = count + 1;
    END`,
  `CREATE TRIGGER contacts_uncounted AFTER DELETE ON contacts BEGIN
      UPDATE contact_counts SET count = count - 1
        WHERE workspace_id = OLD.workspace_id AND opt_in_status = OLD.opt_in_status;
    END`,

  // Contentless: the text lives in contacts; rows are replaced by rowid when a contact changes.
  // Every word carries its workspace's id as a prefix (see domain/contact-search.ts).
  `CREATE VIRTUAL TABLE contacts_fts USING fts5(
      name, phone, email,
      content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
    )`,

  ...contactImportStatements,
  `CREATE TABLE contact_import_chunks (
      import_id TEXT NOT NULL REFERENCES contact_imports(id),
      seq INTEGER NOT NULL,
      data BLOB NOT NULL,
      PRIMARY KEY (import_id, seq)
    )`,
  `CREATE TABLE contact_import_errors (
      import_id TEXT NOT NULL REFERENCES contact_imports(id),
      row INTEGER NOT NULL,
      phone TEXT,
      field TEXT NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (import_id, row)
    ) WITHOUT ROWID`,
];

/**
 * The same tables on PostgreSQL. `seq` is an identity column, and the list indexes name it
 * (SQLite's end with the rowid by themselves). Search is a `tsvector` column filled by the
 * contact writer with the same workspace-prefixed terms as SQLite's FTS5 index, read through a
 * GIN index. The per-row insert counters and tag-link counters of SQLite's first version were
 * measured away (0007) before this engine existed, so only the status-change and delete
 * triggers are created here.
 */
const postgresStatements = [
  `CREATE TABLE contacts (
    seq INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    phone TEXT NOT NULL,
    first_name TEXT,
    last_name TEXT,
    email TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    custom_fields TEXT NOT NULL DEFAULT '{}',
    opt_in_status TEXT NOT NULL,
    opt_in_source TEXT,
    opted_in_at TEXT,
    opted_out_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    search_terms TSVECTOR NOT NULL DEFAULT ''::tsvector
  )`,
  "CREATE UNIQUE INDEX contacts_by_phone ON contacts (workspace_id, phone)",
  "CREATE INDEX contacts_by_workspace ON contacts (workspace_id, seq)",
  "CREATE INDEX contacts_by_status ON contacts (workspace_id, opt_in_status, seq)",
  "CREATE INDEX contacts_search ON contacts USING GIN (search_terms)",

  `CREATE TABLE contact_tags (
    seq INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name TEXT NOT NULL,
    contact_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  )`,
  "CREATE UNIQUE INDEX contact_tags_by_name ON contact_tags (workspace_id, name)",
  `CREATE TABLE contact_tag_links (
    tag_seq INTEGER NOT NULL,
    contact_seq INTEGER NOT NULL,
    PRIMARY KEY (tag_seq, contact_seq)
  )`,

  `CREATE TABLE contact_counts (
    workspace_id TEXT NOT NULL,
    opt_in_status TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, opt_in_status)
  )`,
  // Both counters are locked in one order (by status) before either changes: two contacts moving
  // in opposite directions at once must not each hold the counter the other waits for.
  `CREATE FUNCTION contacts_recount() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'UPDATE' AND OLD.opt_in_status IS NOT DISTINCT FROM NEW.opt_in_status THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
      INSERT INTO contact_counts (workspace_id, opt_in_status, count)
        VALUES (NEW.workspace_id, NEW.opt_in_status, 0)
        ON CONFLICT (workspace_id, opt_in_status) DO NOTHING;
      PERFORM 1 FROM contact_counts
        WHERE workspace_id = NEW.workspace_id
          AND opt_in_status IN (OLD.opt_in_status, NEW.opt_in_status)
        ORDER BY opt_in_status FOR UPDATE;
      UPDATE contact_counts SET count = count + 1
        WHERE workspace_id = NEW.workspace_id AND opt_in_status = NEW.opt_in_status;
    END IF;
    UPDATE contact_counts SET count = count - 1
      WHERE workspace_id = OLD.workspace_id AND opt_in_status = OLD.opt_in_status;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER contacts_recounted AFTER UPDATE OF opt_in_status ON contacts
    FOR EACH ROW EXECUTE FUNCTION contacts_recount()`,
  `CREATE TRIGGER contacts_uncounted AFTER DELETE ON contacts
    FOR EACH ROW EXECUTE FUNCTION contacts_recount()`,

  ...contactImportStatements,
  `CREATE TABLE contact_import_chunks (
    import_id TEXT NOT NULL REFERENCES contact_imports(id),
    seq INTEGER NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (import_id, seq)
  )`,
  `CREATE TABLE contact_import_errors (
    import_id TEXT NOT NULL REFERENCES contact_imports(id),
    row INTEGER NOT NULL,
    phone TEXT,
    field TEXT NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (import_id, row)
  )`,
];
