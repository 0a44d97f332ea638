import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The test cluster's base URL (`postgres://…/`), set by test/setup/postgres.ts. */
    postgresBaseUrl: string;
  }
}

/** The database every test database is copied from: migrated once per run. */
export const templateDatabase = "reseller_template";

/** Whether this test file runs on PostgreSQL (the `postgres` project of vitest.config.ts). */
export function onPostgres(): boolean {
  return process.env.RESELLER_TEST_ENGINE === "postgres";
}

async function withAdmin<T>(baseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${baseUrl}postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated PostgreSQL database of its own for one test app (a copy of the template,
 * which takes milliseconds), and how to drop it.
 */
export async function createTestDatabase(
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const baseUrl = inject("postgresBaseUrl");
  const name = `t_${randomBytes(8).toString("hex")}`;
  await withAdmin(baseUrl, (client) =>
    client.query(
      `CREATE DATABASE ${name} TEMPLATE ${options.empty ? "template0" : templateDatabase}`,
    ),
  );
  return {
    url: `${baseUrl}${name}`,
    drop: () =>
      withAdmin(baseUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
