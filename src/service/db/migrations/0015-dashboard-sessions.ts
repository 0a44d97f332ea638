import type { Kysely } from "kysely";

/**
 * Dashboard sessions and one-time sign-in codes in the database rather than in one process's
 * memory, so that behind a load balancer every instance knows a browser's session. A row holds
 * the hash of the cookie's key and the session's token sealed with a key derived from the
 * cookie: the database alone never reveals a usable token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("dashboard_sessions")
    .addColumn("key_hash", "text", (c) => c.primaryKey())
    .addColumn("token_sealed", "text", (c) => c.notNull())
    .addColumn("minted_token_id", "text")
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dashboard_sessions_by_expiry")
    .on("dashboard_sessions")
    .column("expires_at")
    .execute();
  await db.schema
    .createTable("dashboard_sign_in_codes")
    .addColumn("code_hash", "text", (c) => c.primaryKey())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("dashboard_sign_in_codes").execute();
  await db.schema.dropTable("dashboard_sessions").execute();
}
