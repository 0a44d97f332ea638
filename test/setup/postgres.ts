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
  return () => cluster?.stop();
}
