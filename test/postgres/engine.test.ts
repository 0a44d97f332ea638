import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { DatabaseUnavailableError } from "../../src/service/db/database-errors.js";
import { migrationProvider } from "../../src/service/db/migrations/index.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

describe("the PostgreSQL engine", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
  });
  afterAll(() => target.drop());

  it("applies every migration once when three instances start together on an empty database", async () => {
    const handles = await Promise.all([1, 2, 3].map(() => openDatabase(target.url)));
    try {
      const [first] = handles;
      if (!first) throw new Error("no database opened");
      const applied = await sql<{
        name: string;
      }>`SELECT name FROM kysely_migration ORDER BY name`.execute(first.db);
      expect(applied.rows.map((r) => r.name)).toEqual(
        Object.keys(await migrationProvider.getMigrations()).sort(),
      );
      expect(handles.map((h) => h.engine)).toEqual(["postgres", "postgres", "postgres"]);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  });

  it("keeps a plan's price exactly as given", async () => {
    const database = await openDatabase(target.url);
    try {
      const plan = await database.db
        .selectFrom("plans")
        .select(["price"])
        .where("price", "is not", null)
        .executeTakeFirst();
      // No plans before bootstrap: the column type is what matters.
      expect(plan).toBeUndefined();
      const column = await sql<{
        data_type: string;
      }>`SELECT data_type FROM information_schema.columns
        WHERE table_name = 'plans' AND column_name = 'price'`.execute(database.db);
      expect(column.rows[0]?.data_type).toBe("double precision");
    } finally {
      await database.close();
    }
  });

  it("says where and why when the server cannot be reached, without the password", async () => {
    await expect(openDatabase("postgres://app:s3cret@127.0.0.1:1/reseller")).rejects.toThrow(
      /^Cannot open the database postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/reseller: .*ECONNREFUSED/,
    );
  });

  it("says so when the database does not exist", async () => {
    const missing = `${target.url}_missing`;
    await expect(openDatabase(missing)).rejects.toBeInstanceOf(DatabaseUnavailableError);
  });
});
