import { type Kysely, sql } from "kysely";

/**
 * When each template was approved, as periods: the monthly usage report counts the templates
 * approved at the month's end, which a template's last review alone cannot say once it has been
 * paused and approved again. No foreign key to `templates`: only a draft or rejected template
 * can be deleted, and neither is ever approved, but a past month's figures must not depend on it.
 * Templates approved when this migration runs start a period at their last review; periods
 * before it (of a template paused since) are not known.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("template_approvals")
    .addColumn("template_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("approved_from", "text", (c) => c.notNull())
    // Null while the template is approved.
    .addColumn("approved_until", "text")
    .addPrimaryKeyConstraint("template_approvals_pk", ["template_id", "approved_from"])
    .execute();
  // The report reads a page of workspaces' periods that began before a month's end.
  await db.schema
    .createIndex("template_approvals_by_workspace")
    .on("template_approvals")
    .columns(["workspace_id", "approved_from"])
    .execute();
  await sql`
    INSERT INTO template_approvals (template_id, workspace_id, approved_from, approved_until)
    SELECT id, workspace_id, coalesce(reviewed_at, updated_at), NULL
    FROM templates WHERE status = 'approved'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("template_approvals").execute();
}
