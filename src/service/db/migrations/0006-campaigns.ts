import { type Kysely, sql } from "kysely";

/** Channels, campaigns with their counters and recipients, the monthly message meter, the sandbox log. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("channels")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("channels_workspace_phone", ["workspace_id", "phone"])
    .execute();

  await db.schema
    .createTable("campaigns")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("channel_id", "text", (c) => c.notNull().references("channels.id"))
    .addColumn("template_id", "text", (c) => c.notNull())
    .addColumn("template_name", "text", (c) => c.notNull())
    .addColumn("template_language", "text", (c) => c.notNull())
    .addColumn("audience", "text", (c) => c.notNull())
    .addColumn("variable_mapping", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("scheduled_at", "text")
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .addColumn("failure_reason", "text")
    .addColumn("audience_total", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("skipped_no_consent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("skipped_opted_out", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("queued", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("read", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("stats_updated_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("campaigns_by_workspace")
    .on("campaigns")
    .columns(["workspace_id", "status", "id"])
    .execute();

  await db.schema
    .createTable("campaign_recipients")
    .addColumn("campaign_id", "text", (c) => c.notNull().references("campaigns.id"))
    .addColumn("contact_id", "text", (c) => c.notNull())
    .addColumn("phone", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("provider_message_id", "text")
    .addColumn("failure_reason", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("campaign_recipients_pk", ["campaign_id", "contact_id"])
    .execute();
  await db.schema
    .createIndex("campaign_recipients_by_state")
    .on("campaign_recipients")
    .columns(["campaign_id", "state", "contact_id"])
    .execute();
  await db.schema
    .createIndex("campaign_recipients_by_message")
    .on("campaign_recipients")
    .column("provider_message_id")
    .execute();

  await db.schema
    .createTable("campaign_failures")
    .addColumn("campaign_id", "text", (c) => c.notNull().references("campaigns.id"))
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("campaign_failures_pk", ["campaign_id", "reason"])
    .execute();

  await db.schema
    .createTable("message_counts")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("month", "text", (c) => c.notNull())
    .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("message_counts_pk", ["workspace_id", "month"])
    .execute();

  await db.schema
    .createTable("sandbox_messages")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
    .addColumn("channel_id", "text", (c) => c.notNull())
    .addColumn("to_phone", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text", (c) => c.notNull())
    .addColumn("next_status", "text")
    .addColumn("next_status_at", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo(sql`'sent'`))
    .execute();
  await db.schema
    .createIndex("sandbox_messages_due")
    .on("sandbox_messages")
    .column("next_status_at")
    .where(sql.ref("next_status_at"), "is not", null)
    .execute();
}
