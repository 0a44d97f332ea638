import { type Kysely, sql } from "kysely";
import { engineOf } from "../engine.js";

/**
 * SQLite's search index merges its segments 16 at a time instead of FTS5's default 4: a
 * million-row import wrote 6.4 GB instead of 7.0 GB and took about 8% less time, and a search at
 * a million contacts reads a few more segments without a change in its p99 (4.1 ms;
 * docs/imports-and-search.md). A setting FTS5 keeps with the index; PostgreSQL's GIN index has
 * none like it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await sql`INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', 16)`.execute(db);
}

/** Back to FTS5's default. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await sql`INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', 4)`.execute(db);
}
