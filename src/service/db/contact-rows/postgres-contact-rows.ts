import { type QueryExecutorProvider, sql } from "kysely";
import { foldedTagName } from "../../../contract/contact-rules.js";
import type { ContactRow, ContactRows, TagLink } from "./contact-rows.js";
import { foldDiacritics, type SearchDocument, searchDocument } from "./contact-search.js";

/**
 * The contact writer's statements on PostgreSQL: each step of a batch is one set-based statement
 * over arrays (`unnest`), so an import batch of 500 rows costs a handful of round trips. Rows
 * read for a change are locked (`FOR UPDATE`) until the transaction ends: under READ COMMITTED
 * another instance's change of the same contact waits instead of being overwritten. The search
 * entry is the `search_terms` tsvector, built with `array_to_tsvector` from exactly the terms of
 * SQLite's FTS5 entry (no text search parser or dictionary touches them).
 */

const columns = sql.raw(
  `seq, id, workspace_id, phone, first_name, last_name, email, tags, custom_fields,
   opt_in_status, opt_in_source, opted_in_at, opted_out_at, created_at, updated_at`,
);

/** The search terms of a row as one space-separated text (see searchTermsOf). */
export function searchTermsText(row: ContactRow): string {
  return searchTermsOf(searchDocument(row));
}

/**
 * A search document's terms as one space-separated text, with accents removed as SQLite's
 * tokenizer removes them.
 */
function searchTermsOf(doc: SearchDocument): string {
  const text = `${doc.name} ${doc.phone} ${doc.email}`;
  // Printable ASCII has no accents to fold: most rows skip the two Unicode normalisations.
  return (printableAscii.test(text) ? text : foldDiacritics(text)).replace(/ {2,}/g, " ").trim();
}

const printableAscii = /^[\x20-\x7e]*$/;

/** Terms text to tsvector, in SQL: the lexemes as given, nothing parsed or normalised. */
const toTsvector = (column: string) =>
  sql.raw(`array_to_tsvector(array_remove(string_to_array(${column}, ' '), ''))`);

function tallied(rows: readonly { tag_seq: number }[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const { tag_seq } of rows) counts.set(tag_seq, (counts.get(tag_seq) ?? 0) + 1);
  return counts;
}

/** Links in a fixed order, so two transactions touching the same links lock them alike. */
function ordered(links: readonly TagLink[]): { tags: number[]; contacts: number[] } {
  const sorted = [...links].sort((a, b) => a.tagSeq - b.tagSeq || a.contactSeq - b.contactSeq);
  return { tags: sorted.map((l) => l.tagSeq), contacts: sorted.map((l) => l.contactSeq) };
}

/** The PostgreSQL statements on a Kysely transaction on PostgreSQL. */
export function postgresContactRows(trx: QueryExecutorProvider): ContactRows {
  /** Contacts this transaction inserted: their links cannot exist yet. */
  const inserted = new Set<number>();
  /**
   * Links of those contacts, not yet written: `count`, which the writer's flush always ends
   * with, writes them in its own statement (one round trip less per batch).
   */
  const freshLinks: TagLink[] = [];
  return {
    async find(workspaceId, by, keys) {
      if (keys.length === 0) return [];
      // Each key is looked up on its own through its unique index (LIMIT keeps the subquery
      // from being flattened into a join). Given `phone = ANY(array)` or a plain join, the
      // planner, with the stale statistics of a table an import is filling, read every contact
      // of the workspace for each batch instead (through another index, or into a hash join):
      // 7 ms a batch at 5,000 contacts, growing with the workspace, so an import was quadratic.
      const key = sql.ref(by === "phone" ? "c.phone" : "c.id");
      const { rows: found } = await sql<{ seq: number }>`SELECT f.seq
        FROM unnest(${[...keys]}::text[]) AS k(key)
        CROSS JOIN LATERAL (SELECT seq FROM contacts AS c
          WHERE c.workspace_id = ${workspaceId} AND ${key} = k.key LIMIT 1) AS f`.execute(trx);
      // Contacts new to the workspace (most of an import) cost no second statement. Those that
      // exist are locked in seq order, as every multi-row change of contacts locks them.
      if (found.length === 0) return [];
      const { rows } = await sql<ContactRow>`SELECT ${columns} FROM contacts
        WHERE seq = ANY(${found.map((r) => r.seq)}::int[])
        ORDER BY seq FOR UPDATE`.execute(trx);
      return rows;
    },
    async counted(workspaceId) {
      const { rows } = await sql<{ total: number | null }>`SELECT sum(count) AS total
        FROM contact_counts WHERE workspace_id = ${workspaceId}`.execute(trx);
      return Number(rows[0]?.total ?? 0);
    },
    async insert(contacts) {
      if (contacts.length === 0) return;
      const list = contacts.map((contact) => contact.row);
      const col = <K extends keyof ContactRow>(name: K) => list.map((row) => row[name]);
      const { rows } = await sql<{ id: string; seq: number }>`INSERT INTO contacts (id,
          workspace_id, phone, first_name, last_name, email, tags, custom_fields, opt_in_status,
          opt_in_source, opted_in_at, opted_out_at, created_at, updated_at, search_terms)
        SELECT id, workspace_id, phone, first_name, last_name, email, tags, custom_fields,
          opt_in_status, opt_in_source, opted_in_at, opted_out_at, created_at, updated_at,
          ${toTsvector("terms")}
        FROM unnest(${col("id")}::text[], ${col("workspace_id")}::text[], ${col("phone")}::text[],
          ${col("first_name")}::text[], ${col("last_name")}::text[], ${col("email")}::text[],
          ${col("tags")}::text[], ${col("custom_fields")}::text[], ${col("opt_in_status")}::text[],
          ${col("opt_in_source")}::text[], ${col("opted_in_at")}::text[],
          ${col("opted_out_at")}::text[], ${col("created_at")}::text[], ${col("updated_at")}::text[],
          ${contacts.map((contact) => searchTermsOf(contact.search))}::text[])
          WITH ORDINALITY AS r(id, workspace_id, phone, first_name, last_name, email, tags,
            custom_fields, opt_in_status, opt_in_source, opted_in_at, opted_out_at, created_at,
            updated_at, terms, ord)
        ORDER BY ord
        RETURNING id, seq`.execute(trx);
      const seqs = new Map(rows.map((r) => [r.id, r.seq]));
      for (const row of list) {
        row.seq = seqs.get(row.id) ?? 0;
        inserted.add(row.seq);
      }
    },
    async update(updates) {
      if (updates.length === 0) return;
      const sorted = [...updates].sort((a, b) => a.row.seq - b.row.seq);
      const col = <K extends keyof ContactRow>(name: K) => sorted.map((u) => u.row[name]);
      // A row whose name and email are unchanged keeps its terms (NULL here).
      const terms = sorted.map((u) => (u.search ? searchTermsOf(u.search) : null));
      await sql`UPDATE contacts AS c SET first_name = u.first_name, last_name = u.last_name,
          email = u.email, tags = u.tags, custom_fields = u.custom_fields,
          opt_in_status = u.opt_in_status, opt_in_source = u.opt_in_source,
          opted_in_at = u.opted_in_at, opted_out_at = u.opted_out_at, updated_at = u.updated_at,
          search_terms = CASE WHEN u.terms IS NULL THEN c.search_terms ELSE ${toTsvector("u.terms")} END
        FROM unnest(${col("seq")}::int[], ${col("first_name")}::text[], ${col("last_name")}::text[],
          ${col("email")}::text[], ${col("tags")}::text[], ${col("custom_fields")}::text[],
          ${col("opt_in_status")}::text[], ${col("opt_in_source")}::text[],
          ${col("opted_in_at")}::text[], ${col("opted_out_at")}::text[],
          ${col("updated_at")}::text[], ${terms}::text[])
          AS u(seq, first_name, last_name, email, tags, custom_fields, opt_in_status,
            opt_in_source, opted_in_at, opted_out_at, updated_at, terms)
        WHERE c.seq = u.seq`.execute(trx);
    },
    async tags(workspaceId, names, now) {
      if (names.length === 0) return new Map();
      // Every batch of an import names its tags again, and after the first they all exist: one
      // read then, the insert only for names still missing.
      const read = async (list: readonly string[]) => {
        const { rows } = await sql<{ seq: number; name: string }>`SELECT seq, name
          FROM contact_tags
          WHERE workspace_id = ${workspaceId} AND name = ANY(${[...list]}::text[])`.execute(trx);
        return rows;
      };
      const seqs = new Map((await read(names)).map((r) => [r.name, r.seq]));
      const missing = names.filter((name) => !seqs.has(name));
      if (missing.length === 0) return seqs;
      // Created unless another transaction did first (it then waits for that one to end, and
      // the read after it sees that transaction's row).
      await sql`INSERT INTO contact_tags (workspace_id, name, folded_name, contact_count, created_at)
        SELECT ${workspaceId}, name, folded, 0, ${now}
        FROM unnest(${missing}::text[], ${missing.map(foldedTagName)}::text[])
          WITH ORDINALITY AS n(name, folded, ord)
        ORDER BY ord
        ON CONFLICT (workspace_id, name) DO NOTHING`.execute(trx);
      for (const r of await read(missing)) seqs.set(r.name, r.seq);
      return seqs;
    },
    async link(list) {
      if (list.length === 0) return new Map();
      // Links of contacts inserted in this transaction are all new: a plain insert, counted
      // here, costs half of one that checks each link for a conflict and returns it.
      const seen = new Set<string>();
      const counts = new Map<number, number>();
      for (const link of list) {
        const key = `${link.tagSeq}:${link.contactSeq}`;
        if (!inserted.has(link.contactSeq) || seen.has(key)) continue;
        seen.add(key);
        freshLinks.push(link);
        counts.set(link.tagSeq, (counts.get(link.tagSeq) ?? 0) + 1);
      }
      const others = ordered(list.filter((l) => !inserted.has(l.contactSeq)));
      if (others.tags.length > 0) {
        const { rows } = await sql<{ tag_seq: number }>`INSERT INTO contact_tag_links
            (tag_seq, contact_seq)
          SELECT * FROM unnest(${others.tags}::int[], ${others.contacts}::int[])
          ON CONFLICT DO NOTHING
          RETURNING tag_seq`.execute(trx);
        for (const { tag_seq } of rows) counts.set(tag_seq, (counts.get(tag_seq) ?? 0) + 1);
      }
      return counts;
    },
    async unlink(list) {
      if (list.length === 0) return new Map();
      const { tags, contacts } = ordered(list);
      const { rows } = await sql<{ tag_seq: number }>`DELETE FROM contact_tag_links AS l
        USING unnest(${tags}::int[], ${contacts}::int[]) AS u(tag_seq, contact_seq)
        WHERE l.tag_seq = u.tag_seq AND l.contact_seq = u.contact_seq
        RETURNING l.tag_seq`.execute(trx);
      return tallied(rows);
    },
    async count(workspaceId, created, linked) {
      // In key order, so concurrent transactions lock counter rows in the same order. The links
      // `link` left to write go with the first statement: inserting them takes no row lock.
      const links = ordered(freshLinks.splice(0));
      const writeLinks = sql`WITH links AS (INSERT INTO contact_tag_links (tag_seq, contact_seq)
        SELECT * FROM unnest(${links.tags}::int[], ${links.contacts}::int[]))`;
      const statuses = [...created.keys()].sort();
      const tagSeqs = [...linked.keys()]
        .filter((seq) => linked.get(seq) !== 0)
        .sort((a, b) => a - b);
      let linksLeft = links.tags.length > 0;
      if (statuses.length > 0 || (linksLeft && tagSeqs.length === 0)) {
        await sql`${linksLeft ? writeLinks : sql``}
          INSERT INTO contact_counts AS c (workspace_id, opt_in_status, count)
          SELECT ${workspaceId}, s, n
          FROM unnest(${statuses}::text[], ${statuses.map((s) => created.get(s) ?? 0)}::int[])
            AS u(s, n)
          ORDER BY s
          ON CONFLICT (workspace_id, opt_in_status) DO UPDATE SET count = c.count + excluded.count`.execute(
          trx,
        );
        linksLeft = false;
      }
      if (tagSeqs.length > 0) {
        // An UPDATE … FROM takes its rows' locks in the order its plan meets them, whatever the
        // order of the list: two transactions counting the same tags deadlocked (a 503 for one).
        // Locked first here, in key order, as the comment above means.
        await sql`SELECT 1 FROM contact_tags WHERE seq = ANY(${tagSeqs}::int[])
          ORDER BY seq FOR NO KEY UPDATE`.execute(trx);
        await sql`${linksLeft ? writeLinks : sql``}
          UPDATE contact_tags AS t SET contact_count = t.contact_count + u.n
          FROM unnest(${tagSeqs}::int[], ${tagSeqs.map((seq) => linked.get(seq) ?? 0)}::int[])
            AS u(seq, n)
          WHERE t.seq = u.seq`.execute(trx);
      }
    },
  };
}
