import { type Kysely, sql } from "kysely";
import { searchDocument } from "../contact-rows/contact-search.js";
import { engineOf } from "../engine.js";

/**
 * The search index gets prefix indexes for one- and two-character prefixes, so a broad search
 * (`a`, `le`, `+49`) reads one list of matches instead of merging every term that starts with
 * it: at a million contacts the first 1,001 matches of `k` took 15 ms, of `le` 5 ms, of `+49`
 * 105 ms; with the prefix index each about 0.5 ms.
 *
 * Every indexed term starts with its workspace's 28-character prefix (`ws` and the ULID; see
 * domain/contact-search.ts), so the lengths indexed are 29 and 30: one or two characters of a
 * word, the first digit or two of a phone, one character of a whole value or of a national or
 * reversed number. Each length adds an entry per term to every write: measured, building the
 * index of 100,000 contacts took 2.1 s without and with one length, 3.3 s with three; of a
 * million, 23 s with one and 29 s with two. Longer word prefixes match few terms; a longer phone
 * prefix shared by most numbers (`+4915` in a German list) still merges one term per number.
 *
 * FTS5 cannot add a prefix index to an existing table: it is recreated and refilled from the
 * contacts, with the same function the writer indexes with. PostgreSQL's GIN index of terms
 * answers a prefix query from its sorted terms already, so there this step changes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await rebuildSearchIndex(db, "prefix = '29 30'");
}

/** Back to the index without prefix indexes. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await rebuildSearchIndex(db, null);
}

async function rebuildSearchIndex(db: Kysely<unknown>, prefixOption: string | null): Promise<void> {
  await sql.raw("DROP TABLE contacts_fts").execute(db);
  await sql
    .raw(
      `CREATE VIRTUAL TABLE contacts_fts USING fts5(
        name, phone, email,
        content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'${prefixOption ? `, ${prefixOption}` : ""}
      )`,
    )
    .execute(db);
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
      FROM contacts WHERE seq > ${after} ORDER BY seq LIMIT 500`.execute(db);
    const last = page.rows.at(-1);
    if (!last) break;
    const values = page.rows.map((row) => {
      const doc = searchDocument(row);
      return sql`(${row.seq}, ${doc.name}, ${doc.phone}, ${doc.email})`;
    });
    await sql`INSERT INTO contacts_fts (rowid, name, phone, email) VALUES ${sql.join(values)}`.execute(
      db,
    );
    after = last.seq;
  }
}
