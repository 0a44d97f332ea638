import { type Kysely, sql } from "kysely";
import { searchDocument } from "../contact-rows/contact-search.js";
import { engineOf } from "../engine.js";

/**
 * Contacts written in bulk at the cost of the bare work, and searched the way people type.
 *
 * - The per-row triggers that counted new contacts and tag links go: measured, the INSERT
 *   trigger on contacts alone halved an import's rate. The contact writer keeps those counters
 *   now, once per batch (domain/contact-store.ts). The triggers for status changes and deletes
 *   stay: they fire rarely and keep every other writer exact.
 * - Tags are found case-insensitively (`tag=GOLD` finds `gold`).
 * - Uploads are staged in `contact_import_uploads`, one piece per short transaction while the
 *   request body streams in, so a 100 MB upload never holds the write lock for long; the import
 *   row and its job are written when the upload is complete. Pieces of an upload that never
 *   completed are removed later (see domain/contact-imports.ts).
 * - The search index is rebuilt: it now also holds a phone's last digits and national form, and
 *   letters such as ø, ß and ł folded to their plain forms.
 *
 * On PostgreSQL (created after this step) the counting triggers and the old index never
 * existed, and the search terms are written by the contact writer from the start.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = engineOf(db) === "postgres";
  for (const trigger of postgres
    ? []
    : ["contacts_counted", "contact_tag_links_added", "contact_tag_links_removed"]) {
    await sql.raw(`DROP TRIGGER IF EXISTS ${trigger}`).execute(db);
  }
  await sql
    .raw(
      postgres
        ? "CREATE INDEX contact_tags_by_folded_name ON contact_tags (workspace_id, lower(name))"
        : "CREATE INDEX contact_tags_by_folded_name ON contact_tags (workspace_id, name COLLATE NOCASE)",
    )
    .execute(db);

  // Rows that said opted_in for a contact who had opted out, left opted out (the consent rule).
  await db.schema
    .alterTable("contact_imports")
    .addColumn("opt_outs_kept", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("contact_import_uploads")
    .addColumn("upload_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("data", postgres ? "bytea" : "blob", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("contact_import_uploads_pk", ["upload_id", "seq"])
    .execute();
  await sql
    .raw(
      `INSERT INTO contact_import_uploads (upload_id, seq, data, created_at)
       SELECT c.import_id, c.seq, c.data, i.created_at
       FROM contact_import_chunks c JOIN contact_imports i ON i.id = c.import_id`,
    )
    .execute(db);
  await sql.raw("DELETE FROM contact_import_chunks").execute(db);
  if (postgres) return;

  // Rebuilt from the contacts in pages, with the same function the writer indexes with.
  await sql.raw("INSERT INTO contacts_fts (contacts_fts) VALUES ('delete-all')").execute(db);
  interface Indexed {
    seq: number;
    workspace_id: string;
    phone: string;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
  }
  let after = 0;
  for (;;) {
    const page = await sql<Indexed>`SELECT seq, workspace_id, phone, first_name, last_name, email
      FROM contacts WHERE seq > ${after} ORDER BY seq LIMIT 5000`.execute(db);
    const last = page.rows.at(-1);
    if (!last) break;
    for (const row of page.rows) {
      const doc = searchDocument(row);
      await sql`INSERT INTO contacts_fts (rowid, name, phone, email)
        VALUES (${row.seq}, ${doc.name}, ${doc.phone}, ${doc.email})`.execute(db);
    }
    after = last.seq;
  }
}
