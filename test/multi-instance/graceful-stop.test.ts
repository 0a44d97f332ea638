import { type KyselyPlugin, type QueryId, UpdateQueryNode } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { enqueueJob } from "../../src/service/jobs/job-queue.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";
import { createTestDatabase, onPostgres } from "../helpers/postgres-databases.js";
import { TestClock } from "../helpers/test-app.js";

/**
 * Holds back the answer of every job claim (the one UPDATE of jobs that returns the row) until
 * `open()`, so a test can stop a runner while one of its claims is under way.
 */
function heldClaims() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let claiming!: () => void;
  const claimed = new Promise<void>((resolve) => {
    claiming = resolve;
  });
  const claims = new WeakSet<QueryId>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (UpdateQueryNode.is(node) && node.returning) claims.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (claims.has(queryId)) {
        claiming();
        await opened;
      }
      return result;
    },
  };
  return { plugin, claimed, open };
}

/** What a stopping instance does with the work it holds, whichever engine it runs on. */
describe("an instance that stops", () => {
  let database: DatabaseHandle;
  let drop: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const postgres = onPostgres() ? await createTestDatabase() : null;
    drop = postgres?.drop;
    database = await openDatabase(postgres?.url ?? ":memory:");
  });
  afterEach(async () => {
    await database.close();
    await drop?.();
  });

  it("never runs a job it was claiming when the stop began, and hands it back to the queue", async () => {
    const clock = new TestClock();
    const held = heldClaims();
    const ran: string[] = [];
    const runner = new JobRunner({
      db: database.db.withPlugin(held.plugin),
      clock,
      pollMs: 60_000,
      handlers: {
        work: async (job) => {
          ran.push(job.id);
          return { state: "done" };
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    await runner.start();
    await held.claimed;
    const stopping = runner.stop();
    held.open();
    await stopping;
    // A handler started after the stop would run on a closing database, unknown to the stop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ran).toEqual([]);
    expect(
      await database.db
        .selectFrom("jobs")
        .select(["state", "lease_owner", "attempts"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: "queued", lease_owner: null, attempts: 0 });
    expect(await database.db.selectFrom("instances").select("id").execute()).toEqual([]);
  });
});
