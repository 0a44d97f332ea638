import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../src/service/db/database.js";
import { type Cluster, startCluster } from "../helpers/postgres-cluster.js";
import { templateDatabase } from "../helpers/postgres-databases.js";

let cluster: Cluster | undefined;

/** Starts the run's PostgreSQL cluster and migrates the template every test database copies. */
export default async function setup(project: TestProject): Promise<() => void> {
  cluster = await startCluster();
  const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${templateDatabase} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${templateDatabase}`);
  await admin.end();
  const template = await openDatabase(`${cluster.baseUrl}${templateDatabase}`);
  await template.close();
  project.provide("postgresBaseUrl", cluster.baseUrl);
  // A run stopped by a signal (Ctrl-C, a CI timeout) skips the teardown: stop the server then
  // too, or it outlives the run. stop() is synchronous and harmless twice.
  process.once("exit", stopCluster);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      stopCluster();
      process.kill(process.pid, signal);
    });
  }
  return stopCluster;
}

function stopCluster(): void {
  const running = cluster;
  cluster = undefined;
  running?.stop();
}
