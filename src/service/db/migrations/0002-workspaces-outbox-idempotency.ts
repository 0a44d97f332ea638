import type { Kysely } from "kysely";

/** Client workspaces, the outbox of emails the service sends, and stored idempotent responses. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("workspaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("reseller_id", "text", (c) => c.notNull().references("resellers.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("contact_email", "text", (c) => c.notNull())
    .addColumn("plan_id", "integer", (c) => c.references("plans.id"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("trial_ends_at", "text")
    .addColumn("invitation_sent_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // Lists walk a reseller's workspaces by id, optionally of one status (keyset paging).
  await db.schema
    .createIndex("workspaces_by_reseller")
    .on("workspaces")
    .columns(["reseller_id", "id"])
    .execute();
  await db.schema
    .createIndex("workspaces_by_reseller_status")
    .on("workspaces")
    .columns(["reseller_id", "status", "id"])
    .execute();

  await db.schema
    .createTable("outbox")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("reseller_id", "text", (c) => c.notNull().references("resellers.id"))
    .addColumn("workspace_id", "text", (c) => c.references("workspaces.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("delivery", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("sent_at", "text")
    .execute();
  await db.schema.createIndex("outbox_by_workspace").on("outbox").column("workspace_id").execute();

  await db.schema
    .createTable("idempotency_keys")
    .addColumn("token_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_headers", "text")
    .addColumn("response_body", "text")
    .addColumn("locked_until", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["token_id", "key"])
    .execute();
  await db.schema
    .createIndex("idempotency_keys_by_expiry")
    .on("idempotency_keys")
    .column("expires_at")
    .execute();
}
