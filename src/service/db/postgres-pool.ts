import { Kysely, PostgresDialect } from "kysely";
import { connectionName } from "./connection-names.js";
import type { Db } from "./database.js";
import type { Database } from "./schema.js";

/** Connections per instance: several instances share the server's `max_connections` (100). */
const poolSize = 10;

/**
 * How long a statement waits for one of the pool's connections. Without a limit, a pool whose
 * every connection stays held (a leak, or transactions waiting on each other through the pool)
 * makes the work wait forever without a word; with it the work fails and says why.
 */
const poolWaitLimitMs = 30_000;

/**
 * How long the server lets a connection sit inside a transaction with no statement running. A
 * transaction left open by a caller that is stuck would otherwise keep its row locks, and every
 * writer of those rows (another instance taking an import over) would wait for it forever.
 */
const idleInTransactionLimitMs = 60_000;

/** Every connection of the instance's pool stayed in use past the wait limit: nothing ran. */
export class PoolExhaustedError extends Error {
  constructor(cause: unknown) {
    super(
      `all ${poolSize} PostgreSQL connections of this instance stayed in use for ${poolWaitLimitMs / 1000} s; the statement was not run`,
      { cause },
    );
    this.name = "PoolExhaustedError";
  }
}

/** The pool's own timeout, said as what it means for this service. */
function poolWaitError(error: unknown) {
  // pg-pool's wording for a checkout that waited past connectionTimeoutMillis.
  if (!/timeout exceeded when trying to connect/.test(String(error))) return error;
  return new PoolExhaustedError(error);
}

/** A Kysely handle over a pool of PostgreSQL connections, counts read as numbers. */
export async function openPostgres(url: string): Promise<Db> {
  const { default: pg } = await import("pg");
  // Counts and sums come back as int8/numeric, which node-postgres hands over as strings; every
  // count here is far below 2^53, so they are numbers, as on SQLite.
  const asNumber = (value: string) => Number(value);
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
        ? asNumber
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: url,
    application_name: connectionName(),
    max: poolSize,
    types,
    connectionTimeoutMillis: poolWaitLimitMs,
    idle_in_transaction_session_timeout: idleInTransactionLimitMs,
  });
  // An idle connection the server drops (restart, failover) must not crash the process.
  pool.on("error", () => {});
  const listening = new WeakSet<object>();
  const checkouts = {
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        throw poolWaitError(error);
      });
      // Nor one the server ends while it is checked out (idle in a transaction too long), which
      // the pool no longer listens to then: the statement in hand fails, the pool drops it.
      if (!listening.has(client)) {
        listening.add(client);
        client.on("error", () => {});
      }
      return client;
    },
    end: () => pool.end(),
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: checkouts }) });
}
