import type { Kysely } from "kysely";

/**
 * Imports record how they read their file: the mapping of header columns to fields (JSON text,
 * null for imports from before), the separator and the encoding.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("contact_imports").addColumn("mapping", "text").execute();
  await db.schema
    .alterTable("contact_imports")
    .addColumn("delimiter", "text", (c) => c.notNull().defaultTo(","))
    .execute();
  await db.schema
    .alterTable("contact_imports")
    .addColumn("encoding", "text", (c) => c.notNull().defaultTo("utf-8"))
    .execute();
}
