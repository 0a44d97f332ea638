import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
} from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";

import { jobLanes } from "../../src/service/jobs/job-handlers.js";
import {
  campaignRunJob,
  contactImportJobKind,
  templateReviewJobKind,
  webhookDeliveryJob,
} from "../../src/service/jobs/job-kinds.js";
import { claimJob, enqueueJob } from "../../src/service/jobs/job-queue.js";
import { type JobHandler, JobRunner } from "../../src/service/jobs/job-runner.js";
import { type Cluster, startCluster } from "../helpers/postgres-cluster.js";
import { TestClock } from "../helpers/test-app.js";

/**
 * How soon a job starts once due, on both engines: whatever else is queued, and whenever the poke
 * that announces it comes. This file is in the SQLite project only, so it starts a PostgreSQL
 * cluster of its own (or uses RESELLER_TEST_POSTGRES_URL's server).
 */

/** Resolves with the ms from now until `started` settles, or Infinity after `limitMs`. */
async function msUntil(started: Promise<unknown>, limitMs: number): Promise<number> {
  const since = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => {
    timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), limitMs);
  });
  try {
    return await Promise.race([started.then(() => performance.now() - since), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Holds the answer of the runner's next search for due jobs until released: a poll in flight
 * whose search has already run, as when a request commits a job just after the search.
 */
class HeldSearch implements KyselyPlugin {
  private readonly searches = new WeakSet<object>();
  private next: { searched: () => void; released: Promise<void> } | undefined;

  holdNext(): { searched: Promise<void>; release: () => void } {
    const searched = signal();
    const released = signal();
    this.next = { searched: searched.resolve, released: released.promise };
    return { searched: searched.promise, release: released.resolve };
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const from = node.kind === "SelectQueryNode" ? node.from?.froms[0] : undefined;
    if (from && TableNode.is(from) && from.table.identifier.name === "jobs") {
      this.searches.add(queryId);
    }
    return node;
  }

  async transformResult({
    queryId,
    result,
  }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const held = this.next;
    if (held && this.searches.has(queryId)) {
      this.next = undefined;
      held.searched();
      await held.released;
    }
    return result;
  }
}

/** The slots of their own that webhook deliveries run in. */
const deliverySlots = jobLanes.find((lane) => lane.kinds.includes(webhookDeliveryJob))?.slots ?? 0;

let cluster: Cluster | undefined;
beforeAll(async () => {
  cluster = await startCluster();
}, 120_000);
afterAll(() => cluster?.stop());

/**
 * A fresh, migrated database of `engine` (dropped when closed), and where it is, so another
 * connection can be opened to it.
 */
async function freshDatabase(
  engine: "sqlite" | "postgres",
): Promise<{ target: string; handle: DatabaseHandle }> {
  if (engine === "sqlite") {
    const target = join(mkdtempSync(join(tmpdir(), "reseller-jobs-")), "jobs.db");
    return { target, handle: await openDatabase(target) };
  }
  const baseUrl = cluster?.baseUrl ?? "";
  const name = `jobs_${randomBytes(6).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: `${baseUrl}postgres` });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const target = `${baseUrl}${name}`;
  const database = await openDatabase(target);
  const handle = {
    ...database,
    close: async () => {
      await database.close();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
  return { target, handle };
}

describe.each(["sqlite", "postgres"] as const)("jobs start promptly on %s", (engine) => {
  let database: DatabaseHandle;
  let target: string;
  let clock: TestClock;
  let runner: JobRunner | undefined;
  beforeEach(async () => {
    ({ target, handle: database } = await freshDatabase(engine));
    clock = new TestClock();
  });
  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
    await database.close();
  });

  it("starts a campaign send and a template review at once while webhook deliveries to a receiver that is down and long imports fill their slots", async () => {
    const running = new Map<string, number>();
    const started = new Map<string, ReturnType<typeof signal>>();
    const busy = signal();
    const begun = (kind: string) => {
      running.set(kind, (running.get(kind) ?? 0) + 1);
      started.get(kind)?.resolve();
      // Every slot the backlogs may take is taken: the deliveries' and two imports.
      if (
        running.get(webhookDeliveryJob) === deliverySlots &&
        running.get(contactImportJobKind) === 2
      ) {
        busy.resolve();
      }
    };
    // A delivery waits for a receiver that never answers, an import for rows that keep coming:
    // both until the service stops.
    const hangs: JobHandler = async (job, ctx) => {
      begun(job.kind);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
      return { state: "interrupted" };
    };
    const quick: JobHandler = async (job) => {
      begun(job.kind);
      return { state: "done" };
    };
    runner = new JobRunner({
      db: database.db,
      clock,
      concurrency: 2,
      lanes: jobLanes,
      handlers: {
        [webhookDeliveryJob]: hangs,
        [contactImportJobKind]: hangs,
        [campaignRunJob]: quick,
        [templateReviewJobKind]: quick,
      },
    });
    for (let i = 0; i < 200; i++) {
      await enqueueJob(database.db, clock, { kind: webhookDeliveryJob, payload: { i } });
    }
    for (let i = 0; i < 3; i++) {
      await enqueueJob(database.db, clock, { kind: contactImportJobKind, payload: { i } });
    }
    await runner.start();
    // The backlogs hold whatever slots they may take before the others come (without lanes of
    // their own they never take four).
    expect(await msUntil(busy.promise, 3000)).toBeLessThan(3000);

    for (const kind of [campaignRunJob, templateReviewJobKind]) {
      const start = signal();
      started.set(kind, start);
      await enqueueJob(database.db, clock, { kind, payload: {} });
      runner.poke();
      // Without slots of their own the backlog took every slot: they waited for ever.
      expect(await msUntil(start.promise, 3000)).toBeLessThan(1000);
    }
    // Each backlog ran in its own slots, no more.
    expect(running.get(webhookDeliveryJob)).toBe(deliverySlots);
    expect(running.get(contactImportJobKind)).toBe(2);
  });

  it("never lets claims made at the same moment run two jobs of one serial key", async () => {
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 4; i++) {
        await enqueueJob(database.db, clock, {
          kind: webhookDeliveryJob,
          payload: { round, i },
          serialKey: `endpoint-${round}`,
        });
      }
      // Four instances claim at once, as their polls meet under a backlog.
      const claimed = await Promise.all(
        ["a", "b", "c", "d"].map((owner) =>
          claimJob(database.db, clock, `inst_${owner}`, 30_000, undefined, {
            in: [webhookDeliveryJob],
          }),
        ),
      );
      expect(claimed.filter((job) => job !== null)).toHaveLength(1);
      const running = await database.db
        .selectFrom("jobs")
        .select("id")
        .where("serial_key", "=", `endpoint-${round}`)
        .where("state", "=", "running")
        .execute();
      expect(running).toHaveLength(1);
    }
  });

  it("runs one delivery at a time per endpoint, so one whose receiver never answers holds one slot and the others' go on", async () => {
    const running = new Map<string, number>();
    const delivered = new Map<string, ReturnType<typeof signal>>();
    const hangs = signal();
    const receiver = (job: { payload: unknown }) => (job.payload as { to: string }).to;
    runner = new JobRunner({
      db: database.db,
      clock,
      concurrency: 2,
      lanes: jobLanes,
      handlers: {
        [webhookDeliveryJob]: async (job, ctx) => {
          const to = receiver(job);
          running.set(to, (running.get(to) ?? 0) + 1);
          if (to !== "dead") {
            delivered.get(to)?.resolve();
            running.set(to, (running.get(to) ?? 0) - 1);
            return { state: "done" };
          }
          hangs.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          return { state: "interrupted" };
        },
      },
    });
    // Twenty events for a receiver that never answers, queued first.
    for (let i = 0; i < 20; i++) {
      await enqueueJob(database.db, clock, {
        kind: webhookDeliveryJob,
        payload: { to: "dead" },
        serialKey: "webhook-endpoint:dead",
      });
    }
    await runner.start();
    expect(await msUntil(hangs.promise, 3000)).toBeLessThan(3000);
    // Each other endpoint's delivery starts at once, the dead one's next ones waiting their turn.
    for (let e = 0; e < deliverySlots + 2; e++) {
      const to = `live-${e}`;
      const done = signal();
      delivered.set(to, done);
      await enqueueJob(database.db, clock, {
        kind: webhookDeliveryJob,
        payload: { to },
        serialKey: `webhook-endpoint:${to}`,
      });
      runner.poke();
      expect(await msUntil(done.promise, 3000)).toBeLessThan(1000);
    }
    expect(running.get("dead")).toBe(1);
  });

  it("starts a job poked while a poll is already under way at once, not a poll interval later", async () => {
    const held = new HeldSearch();
    const start = signal();
    runner = new JobRunner({
      db: database.db.withPlugin(held),
      clock,
      pollMs: 10_000,
      handlers: {
        work: async () => {
          start.resolve();
          return { state: "done" };
        },
      },
    });
    // A request, on a connection of its own (the held poll keeps the runner's SQLite one).
    const request = await openDatabase(target);
    // The runner's first poll searches the queue, finds it empty, and is held before it ends.
    const poll = held.holdNext();
    try {
      await runner.start();
      await poll.searched;
      // The request commits a job and pokes meanwhile; the poll then ends without having seen it.
      await enqueueJob(request.db, clock, { kind: "work", payload: {} });
      runner.poke();
    } finally {
      poll.release();
      await request.close();
    }
    expect(await msUntil(start.promise, 3000)).toBeLessThan(1000);
  });
});
