import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactedUrl } from "../../src/contract/redacted-url.js";
import { openDatabase } from "../../src/service/db/database.js";
import { migrationProvider } from "../../src/service/db/migrations/index.js";
import { hashToken } from "../../src/service/domain/tokens.js";
import { runCli } from "../helpers/cli.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

/** The admin commands on PostgreSQL: `--database` and DATABASE_URL, as `serve` takes them. */
describe("admin commands on PostgreSQL", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
  });
  afterAll(() => target.drop());

  it("migrates an empty database with admin migrate, naming every migration, then says it is current", async () => {
    const first = await runCli(["admin", "migrate", "--database", target.url, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      applied: Object.keys(await migrationProvider.getMigrations()),
      engine: "postgres",
      database: redactedUrl(target.url),
    });
    const again = await runCli(["admin", "migrate", "--database", target.url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already current/);
  });

  it("creates a reseller with --database, and with DATABASE_URL alone", async () => {
    const flagged = await runCli([
      "admin",
      "resellers",
      "create",
      "--database",
      target.url,
      "--name",
      "Acme Agency",
      "--json",
    ]);
    expect(flagged.code, flagged.stderr).toBe(0);
    const fromEnv = await runCli(["admin", "resellers", "create", "--name", "Other", "--json"], {
      env: { DATABASE_URL: target.url },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const database = await openDatabase(target.url);
    try {
      const names = await sql<{ name: string }>`SELECT name FROM resellers ORDER BY name`.execute(
        database.db,
      );
      expect(names.rows.map((r) => r.name)).toEqual(["Acme Agency", "Other"]);
      // The printed token is the one stored (as its hash).
      const token = JSON.parse(flagged.stdout).token as string;
      const stored = await database.db
        .selectFrom("tokens")
        .select("reseller_id")
        .where("token_hash", "=", hashToken(token))
        .executeTakeFirst();
      expect(stored?.reseller_id).toBe(JSON.parse(flagged.stdout).reseller_id);
    } finally {
      await database.close();
    }
  });

  it("names a database that does not exist, with a hint to create it (exit 2)", async () => {
    const url = new URL(target.url);
    url.pathname = "/no_such_database";
    const run = await runCli(["admin", "migrate", "--database", url.toString()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not exist/);
    expect(run.stderr).toContain("`createdb no_such_database`");
  });

  it("says a search_path that names no schema, on an empty database, with the code to fix it (exit 2)", async () => {
    const empty = await createTestDatabase({ empty: true });
    try {
      const url = new URL(empty.url);
      url.searchParams.set("options", "-c search_path=nope");
      const run = await runCli(["admin", "migrate", "--database", url.toString(), "--json"]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("PostgreSQL has no schema to create reseller's tables in");
      expect(JSON.parse(run.stdout).error.error_code).toBe("database_schema_missing");
    } finally {
      await empty.drop();
    }
  });

  it("says PostgreSQL refused the login when the user does not exist (exit 3)", async () => {
    const url = new URL(target.url);
    url.username = "no_such_user";
    for (const command of [
      ["admin", "migrate"],
      ["admin", "resellers", "create", "--name", "X"],
    ]) {
      const run = await runCli([...command, "--database", url.toString()]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/PostgreSQL refused the login \(.*no_such_user/);
    }
  });

  it("leaves a database of another application as it is instead of adding tables to it (exit 5)", async () => {
    const other = await createTestDatabase({ empty: true });
    try {
      const pg = (await import("pg")).default;
      await onDatabase(other.url, "CREATE TABLE invoices (id integer)");
      const run = await runCli(["admin", "migrate", "--database", other.url]);
      expect(run.code, run.stderr).toBe(5);
      expect(run.stderr).toContain("tables that are not reseller's (invoices)");
      const client = new pg.Client({ connectionString: other.url });
      await client.connect();
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      await client.end();
      expect(tables.rows).toEqual([{ table_name: "invoices" }]);
    } finally {
      await other.drop();
    }
  });

  /** Runs SQL on `url` as its own user. */
  async function onDatabase(url: string, ...statements: string[]) {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  }

  it("says a user without the right to create tables lacks it, and how to grant it (exit 3)", async () => {
    const role = `r_${Date.now()}`;
    // PostgreSQL 15 gives a user who does not own the database no right to create tables in public.
    await onDatabase(target.url, `CREATE ROLE ${role} LOGIN`);
    const other = await createTestDatabase({ empty: true });
    const denied = new URL(other.url);
    denied.username = role;
    try {
      for (const command of [
        ["admin", "migrate"],
        ["serve", "--port", "0"],
      ]) {
        const run = await runCli([...command, "--database", denied.toString()]);
        expect(run.code, run.stderr).toBe(3);
        expect(run.stderr).toContain("permission denied for schema public");
        // Named as in the URL, so the hint can be pasted as it is.
        const database = denied.pathname.slice(1);
        expect(run.stderr).toContain(`ALTER DATABASE ${database} OWNER TO ${role}`);
        expect(run.stderr).toContain(`GRANT CREATE ON SCHEMA public TO ${role}`);
      }
    } finally {
      await other.drop();
      await onDatabase(target.url, `DROP ROLE ${role}`);
    }
  });

  it("counts views as nobody's tables, and finds its migrations through the search path", async () => {
    const other = await createTestDatabase({ empty: true });
    try {
      await onDatabase(other.url, "CREATE VIEW greeting AS SELECT 'hello' AS word");
      const first = await runCli(["admin", "migrate", "--database", other.url]);
      expect(first.code, first.stderr).toBe(0);
      // A schema named after the user comes first in the search path from now on, and holds a
      // table of its own: the database is still reseller's, found through the path.
      const user = decodeURIComponent(new URL(other.url).username);
      await onDatabase(
        other.url,
        `CREATE SCHEMA "${user}"`,
        `CREATE TABLE "${user}".notes (id integer)`,
      );
      const again = await runCli(["admin", "migrate", "--database", other.url]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/already current/);
    } finally {
      await other.drop();
    }
  });

  it("tells serve's database problems as admin migrate tells them", async () => {
    const missing = new URL(target.url);
    missing.pathname = "/no_such_database";
    const run = await runCli(["serve", "--port", "0", "--database", missing.toString()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not exist/);
    expect(run.stderr).toMatch(/createdb/);
  });

  it("never prints the database password", async () => {
    const url = new URL(target.url);
    url.password = "s3cret-pass";
    const run = await runCli(["admin", "migrate", "--database", url.toString(), "--json"]);
    expect(run.stdout + run.stderr).not.toContain("s3cret-pass");
  });
});
