// A throwaway PostgreSQL cluster for the PostgreSQL benchmarks: the test harness's cluster
// (initdb as user postgres, fsync off), started once per `bench/run.ts` and stopped when it exits.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Cluster, startCluster } from "../test/helpers/postgres-cluster.js";

let cluster: Promise<Cluster> | null = null;

/** The benchmark run's cluster, started on first use. */
export function benchCluster(): Promise<Cluster> {
  if (!cluster) {
    cluster = startCluster();
    void cluster.then((started) => {
      // pg_ctl stop is synchronous, so it runs even from the exit handler.
      process.once("exit", () => started.stop());
      for (const signal of ["SIGINT", "SIGTERM"] as const)
        process.once(signal, () => process.exit(130));
    });
  }
  return cluster;
}

/** Runs `work` with a client connected to the cluster's `postgres` database. */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const { baseUrl } = await benchCluster();
  const client = new pg.Client({ connectionString: `${baseUrl}postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the run's cluster (`serve` migrates it), and how to drop it. */
export async function benchDatabase(
  prefix = "bench",
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const { baseUrl } = await benchCluster();
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: `${baseUrl}${name}`,
    name,
    drop: () =>
      withAdmin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
