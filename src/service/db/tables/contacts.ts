import type { CsvMapping } from "../../../contract/csv-options.js";
import type { JsonText } from "../json-text.js";
/** Contacts, their tags and imports (migration 0004). */
export interface ContactTables {
  contacts: ContactTable;
  contact_tags: ContactTagTable;
  contact_tag_links: ContactTagLinkTable;
  contact_counts: ContactCountTable;
  contacts_fts: ContactSearchTable;
  contact_imports: ContactImportTable;
  contact_import_chunks: ContactImportChunkTable;
  contact_import_uploads: ContactImportUploadTable;
  contact_import_errors: ContactImportErrorTable;
}

export interface ContactTable {
  /** Integer key rising with `id`: the order of lists and the rowid of the search index. */
  seq: number;
  id: string;
  workspace_id: string;
  /** E.164, unique within the workspace. */
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  /** JSON array of tag names, in the contact's order. */
  tags: JsonText<string[]>;
  /** JSON object of string values. */
  custom_fields: JsonText<Record<string, string>>;
  opt_in_status: string;
  opt_in_source: string | null;
  opted_in_at: string | null;
  opted_out_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A workspace's tags; `contact_count` is kept by the contact writer (domain/contact-store.ts). */
export interface ContactTagTable {
  seq: number;
  workspace_id: string;
  name: string;
  /** The name as tag filters compare it (foldedTagName). */
  folded_name: string;
  contact_count: number;
  created_at: string;
}

export interface ContactTagLinkTable {
  tag_seq: number;
  contact_seq: number;
}

/** Contacts per workspace and opt-in status: new ones counted by the contact writer, changes by triggers. */
export interface ContactCountTable {
  workspace_id: string;
  opt_in_status: string;
  count: number;
}

/** The FTS5 search index (contentless; rowid is contacts.seq). */
export interface ContactSearchTable {
  rowid: number;
  name: string;
  phone: string;
  email: string;
}

export interface ContactImportTable {
  id: string;
  workspace_id: string;
  /** queued, processing, completed or failed. */
  status: string;
  duplicate_handling: string;
  default_country: string | null;
  total_rows: number;
  processed_rows: number;
  created: number;
  updated: number;
  skipped: number;
  error_count: number;
  /** Rows saying opted_in for a contact who had opted out, who stayed opted out. */
  opt_outs_kept: number;
  /** JSON array of header names the import does not read. */
  ignored_columns: JsonText<string[]>;
  /** JSON object: every header name and the field it fills (null: ignored); null before 0012. */
  mapping: JsonText<CsvMapping> | null;
  /** The separator the file was read with. */
  delimiter: string;
  /** The encoding the file was decoded from (it is stored as UTF-8). */
  encoding: string;
  csv_bytes: number;
  failure_reason: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** Before migration 0007, the uploaded CSV (now in contact_import_uploads); stays empty. */
export interface ContactImportChunkTable {
  import_id: string;
  seq: number;
  data: Buffer;
}

/** Every row error of an import (the record shows the first 1000). */
export interface ContactImportErrorTable {
  import_id: string;
  row: number;
  phone: string | null;
  field: string;
  message: string;
}

/**
 * An uploaded CSV in pieces (`upload_id` is the import's id), written while the body streams in,
 * read in order by the import job and dropped when it ends.
 */
export interface ContactImportUploadTable {
  upload_id: string;
  seq: number;
  data: Buffer;
  created_at: string;
}
