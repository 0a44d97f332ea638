import { type Kysely, sql } from "kysely";
import { uniqueTags } from "../../../contract/contact-rules.js";

/**
 * A contact holds a tag once whatever its case (`uniqueTags`): contacts written before that rule
 * may hold two spellings of one tag (`vip` and `VIP`), which the tag list counted twice. Each
 * such contact keeps the spelling it lists first; its links to the others go, and their counts
 * follow. Workspaces without two spellings of a tag (nearly all) cost one grouped read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One transaction: Kysely runs SQLite's migrations without one, and a start stopped midway
  // would leave a contact with one link gone and both spellings listed, which no rerun finds.
  if (db.isTransaction) await mend(db);
  else await db.transaction().execute(mend);
}

async function mend(db: Kysely<unknown>): Promise<void> {
  const { rows: groups } = await sql<{ workspace_id: string; folded_name: string }>`
    SELECT workspace_id, folded_name FROM contact_tags
    WHERE folded_name <> ''
    GROUP BY workspace_id, folded_name
    HAVING count(*) > 1`.execute(db);
  for (const group of groups) {
    const { rows: spellings } = await sql<{ seq: number; name: string }>`
      SELECT seq, name FROM contact_tags
      WHERE workspace_id = ${group.workspace_id} AND folded_name = ${group.folded_name}
      ORDER BY seq`.execute(db);
    const seqs = spellings.map((t) => t.seq);
    const { rows: holders } = await sql<{ contact_seq: number }>`
      SELECT contact_seq FROM contact_tag_links
      WHERE tag_seq IN (${sql.join(seqs)})
      GROUP BY contact_seq
      HAVING count(*) > 1`.execute(db);
    for (const { contact_seq: contactSeq } of holders) {
      const { rows } = await sql<{ tags: string }>`
        SELECT tags FROM contacts WHERE seq = ${contactSeq}`.execute(db);
      const listed = JSON.parse(rows[0]?.tags ?? "[]") as string[];
      const kept = uniqueTags(listed);
      const keptName =
        kept.find((name) => spellings.some((t) => t.name === name)) ?? spellings[0]?.name;
      for (const spelling of spellings) {
        if (spelling.name === keptName) continue;
        const removed = await sql`DELETE FROM contact_tag_links
          WHERE tag_seq = ${spelling.seq} AND contact_seq = ${contactSeq}`.execute(db);
        if (Number(removed.numAffectedRows ?? 0) > 0) {
          await sql`UPDATE contact_tags SET contact_count = contact_count - 1
            WHERE seq = ${spelling.seq}`.execute(db);
        }
      }
      if (kept.length !== listed.length) {
        await sql`UPDATE contacts SET tags = ${JSON.stringify(kept)}
          WHERE seq = ${contactSeq}`.execute(db);
      }
    }
  }
}
