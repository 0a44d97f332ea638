import type { Kysely } from "kysely";

/**
 * The WhatsApp Cloud API provider: a channel's Graph identifiers and encrypted token, the Graph
 * id of a submitted template, when a recipient's send began (for `outcome_unknown`), and the
 * operator's webhook events, stored before they are applied.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("channels").addColumn("phone_number_id", "text").execute();
  await db.schema.alterTable("channels").addColumn("waba_id", "text").execute();
  await db.schema.alterTable("channels").addColumn("access_token_encrypted", "text").execute();
  await db.schema.alterTable("channels").addColumn("verified_name", "text").execute();
  await db.schema.alterTable("channels").addColumn("quality_rating", "text").execute();
  await db.schema
    .createIndex("channels_by_phone_number_id")
    .on("channels")
    .column("phone_number_id")
    .execute();
  await db.schema.alterTable("templates").addColumn("provider_template_id", "text").execute();
  await db.schema
    .createIndex("templates_by_provider_id")
    .on("templates")
    .column("provider_template_id")
    .execute();
  await db.schema.alterTable("campaign_recipients").addColumn("sending_at", "text").execute();
  await db.schema
    .createTable("whatsapp_webhook_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    /** Message id + status (or template id + event): a repeated delivery is stored once. */
    .addColumn("dedupe_key", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .addColumn("applied_at", "text")
    .execute();
  await db.schema
    .createIndex("whatsapp_webhook_events_pending")
    .on("whatsapp_webhook_events")
    .columns(["applied_at", "received_at"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("whatsapp_webhook_events").execute();
  await db.schema.dropIndex("templates_by_provider_id").execute();
  await db.schema.alterTable("templates").dropColumn("provider_template_id").execute();
  await db.schema.alterTable("campaign_recipients").dropColumn("sending_at").execute();
  await db.schema.dropIndex("channels_by_phone_number_id").execute();
  for (const column of [
    "phone_number_id",
    "waba_id",
    "access_token_encrypted",
    "verified_name",
    "quality_rating",
  ]) {
    await db.schema.alterTable("channels").dropColumn(column).execute();
  }
}
