import { type Kysely, sql } from "kysely";
import { foldedTagName } from "../../../contract/contact-rules.js";

/**
 * Tag names matched whatever their case on both engines alike: each tag keeps its name folded
 * by the service (`foldedTagName`) in `folded_name`, which tag filters and campaign audiences
 * compare. The index on `name COLLATE NOCASE` (SQLite) or `lower(name)` (PostgreSQL) it replaces
 * folded only ASCII letters on SQLite, and on PostgreSQL as the cluster's locale said.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE contact_tags ADD COLUMN folded_name TEXT NOT NULL DEFAULT ''`.execute(db);
  // Tags are a few per workspace: read once, written back by seq.
  const { rows } = await sql<{
    seq: number;
    name: string;
  }>`SELECT seq, name FROM contact_tags`.execute(db);
  for (const { seq, name } of rows) {
    await sql`UPDATE contact_tags SET folded_name = ${foldedTagName(name)} WHERE seq = ${seq}`.execute(
      db,
    );
  }
  await sql`DROP INDEX contact_tags_by_folded_name`.execute(db);
  await sql`CREATE INDEX contact_tags_by_folded_name ON contact_tags (workspace_id, folded_name)`.execute(
    db,
  );
}
