import { type Kysely, sql } from "kysely";
import { engineOf } from "../engine.js";

/** Reseller accounts, their hashed tokens, the plan catalogue and service-wide settings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = engineOf(db) === "postgres";
  await db.schema
    .createTable("resellers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("reseller_id", "text", (c) => c.notNull().references("resellers.id"))
    .addColumn("workspace_id", "text")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("token_hint", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("expires_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("tokens_by_owner")
    .on("tokens")
    .columns(["reseller_id", "workspace_id"])
    .execute();

  await db.schema
    .createTable("plans")
    // PostgreSQL's identity column is SQLite's INTEGER PRIMARY KEY AUTOINCREMENT.
    .addColumn("id", "integer", (c) =>
      postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("is_public", "integer", (c) => c.notNull())
    .addColumn("is_free", "integer", (c) => c.notNull())
    .addColumn("trial_days", "integer")
    // SQLite's REAL is a double; PostgreSQL's `real` would round 19.99.
    .addColumn("price", postgres ? "double precision" : "real")
    .addColumn("billing_period", "text", (c) => c.notNull())
    .addColumn("features", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
    .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
