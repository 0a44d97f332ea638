import type { Kysely } from "kysely";

/** Message templates: one row per workspace + name + language. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("templates")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("category", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("components", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("rejection_reason", "text")
    .addColumn("rejection_detail", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text")
    .addColumn("reviewed_at", "text")
    .execute();
  // Identity: a workspace has one template per name and language.
  await db.schema
    .createIndex("templates_identity")
    .on("templates")
    .columns(["workspace_id", "name", "language"])
    .unique()
    .execute();
  // Lists walk a workspace's templates by id, optionally of one status (keyset paging).
  await db.schema
    .createIndex("templates_by_workspace")
    .on("templates")
    .columns(["workspace_id", "id"])
    .execute();
  await db.schema
    .createIndex("templates_by_workspace_status")
    .on("templates")
    .columns(["workspace_id", "status", "id"])
    .execute();
}
