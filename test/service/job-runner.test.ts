import { existsSync, mkdtempSync, readFileSync, readlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { processSpace } from "../../src/service/db/connection-names.js";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { sqliteHandleOf } from "../../src/service/db/engine.js";
import {
  checkpointJob,
  claimJob,
  enqueueJob,
  LeaseLostError,
} from "../../src/service/jobs/job-queue.js";
import { type JobHandler, JobRunner } from "../../src/service/jobs/job-runner.js";
import { TestClock } from "../helpers/test-app.js";

describe("durable jobs", () => {
  let database: DatabaseHandle;
  let clock: TestClock;
  beforeEach(async () => {
    database = await openDatabase(":memory:");
    clock = new TestClock();
  });
  afterEach(() => database.close());

  const state = async (id: string) =>
    database.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("runs a queued job once and marks it done", async () => {
    const seen: unknown[] = [];
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        echo: async (job) => {
          seen.push(job.payload);
          return { state: "done" };
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "echo", payload: { n: 1 } });
    expect(await runner.runDue()).toBe(1);
    expect(await runner.runDue()).toBe(0);
    expect(seen).toEqual([{ n: 1 }]);
    expect((await state(id)).state).toBe("done");
  });

  it("does not run a scheduled job before its time", async () => {
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: { later: async () => ({ state: "done" }) },
    });
    await enqueueJob(database.db, clock, {
      kind: "later",
      payload: {},
      runAt: new Date(clock.now().getTime() + 60_000),
    });
    expect(await runner.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await runner.runDue()).toBe(1);
  });

  it("puts a job back in the queue for the time its handler asks", async () => {
    let calls = 0;
    const handler: JobHandler = async () => {
      calls += 1;
      return calls === 1
        ? { state: "retry", at: new Date(clock.now().getTime() + 5000) }
        : { state: "done" };
    };
    const runner = new JobRunner({ db: database.db, clock, handlers: { flaky: handler } });
    const id = await enqueueJob(database.db, clock, { kind: "flaky", payload: {} });
    await runner.runDue();
    expect((await state(id)).state).toBe("queued");
    expect(await runner.runDue()).toBe(0);
    clock.advance(5000);
    await runner.runDue();
    expect((await state(id)).state).toBe("done");
  });

  it("does not count a job's own rescheduling as failed attempts: a long-lived job survives a later error", async () => {
    let calls = 0;
    const handler: JobHandler = async () => {
      calls += 1;
      if (calls <= 8) return { state: "retry", at: new Date(clock.now().getTime() + 1000) };
      if (calls === 9) throw new Error("a passing fault");
      return { state: "done" };
    };
    const runner = new JobRunner({ db: database.db, clock, handlers: { sweep: handler } });
    const id = await enqueueJob(database.db, clock, { kind: "sweep", payload: {} });
    for (let i = 0; i < 9; i++) {
      await runner.runDue();
      clock.advance(1000);
    }
    // The fault is retried with backoff, not recorded as the job's final failure.
    expect(calls).toBe(9);
    expect((await state(id)).state).toBe("queued");
    clock.advance(60_000);
    await runner.runDue();
    expect((await state(id)).state).toBe("done");
  });

  it("resumes a job from its checkpoint when the lease of a crashed worker runs out", async () => {
    const id = await enqueueJob(database.db, clock, { kind: "count", payload: { to: 3 } });
    // A worker claimed it, saved progress, and died without settling the job.
    const crashed = await claimJob(database.db, clock, "elsewhere:1:1", 30_000);
    expect(crashed?.id).toBe(id);
    await database.db
      .updateTable("jobs")
      .set({ checkpoint: JSON.stringify({ done: 2 }) })
      .where("id", "=", id)
      .execute();

    const resumedFrom: unknown[] = [];
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        count: async (job) => {
          resumedFrom.push(job.checkpoint);
          return { state: "done" };
        },
      },
    });
    expect(await runner.runDue()).toBe(0);
    clock.advance(30_001);
    expect(await runner.runDue()).toBe(1);
    expect(resumedFrom).toEqual([{ done: 2 }]);
    expect((await state(id)).attempts).toBe(2);
  });

  /** Records an instance as another `serve` would, last seen `agoMs` before the clock's now. */
  const instance = async (
    id: string,
    options: { pid?: number; agoMs?: number; host?: string } = {},
  ) => {
    const seen = new Date(clock.now().getTime() - (options.agoMs ?? 0)).toISOString();
    await database.db
      .insertInto("instances")
      .values({
        id,
        host: options.host ?? processSpace,
        pid: options.pid ?? process.pid,
        started_at: seen,
        last_seen_at: seen,
      })
      .execute();
  };

  it("takes over at once the jobs of an instance on this machine whose process is gone", async () => {
    await instance("ins_crashed", { pid: 999_999_999 });
    const id = await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    await claimJob(database.db, clock, "ins_crashed", 30_000);
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: { work: async () => ({ state: "done" }) },
    });
    expect(await runner.runDue()).toBe(0);
    await runner.start();
    await runner.stop();
    expect(await runner.runDue()).toBe(1);
    expect((await state(id)).state).toBe("done");
  });

  it("never judges by pid an instance in a container of the same host name but other pids, and leaves its jobs alone", async () => {
    // Docker's host network gives containers the host's name; each counts pids of its own.
    // Its row says the host name alone, as one in a container of the same name would look to
    // a check by host name.
    await instance("ins_next_container", { pid: 999_999_999, host: hostname() });
    const id = await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    await claimJob(database.db, clock, "ins_next_container", 30_000);
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: { work: async () => ({ state: "done" }) },
    });
    await runner.start();
    // Its own row names its space: the host, the machine's boot and its pid namespace.
    const own = await database.db
      .selectFrom("instances")
      .select("host")
      .where("id", "=", runner.instanceId)
      .executeTakeFirstOrThrow();
    expect(own.host.startsWith(hostname())).toBe(true);
    if (existsSync("/proc/self/ns/pid")) {
      expect(own.host).toContain(readlinkSync("/proc/self/ns/pid"));
      expect(own.host).toContain(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
    }
    await runner.stop();
    expect(await runner.runDue()).toBe(0);
    expect((await state(id)).lease_owner).toBe("ins_next_container");
  });

  it("takes over the jobs of an instance that stopped sending heartbeats, before its lease ends", async () => {
    await instance("ins_elsewhere", { pid: 1 });
    const id = await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    await claimJob(database.db, clock, "ins_elsewhere", 30_000);
    const runner = new JobRunner({
      db: database.db,
      clock,
      deadAfterMs: 20_000,
      handlers: { work: async () => ({ state: "done" }) },
    });
    clock.advance(19_000);
    expect(await runner.runDue()).toBe(0);
    clock.advance(1_001);
    expect(await runner.runDue()).toBe(1);
    expect(await state(id)).toMatchObject({ state: "done", attempts: 2 });
  });

  it("leaves the jobs of a live instance alone however long they run", async () => {
    await instance("ins_busy", { pid: 1 });
    await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    const claimed = await claimJob(database.db, clock, "ins_busy", 30_000);
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: { work: async () => ({ state: "done" }) },
    });
    for (let i = 0; i < 4; i++) {
      clock.advance(15_000);
      // The busy instance's heartbeat and lease extension.
      await database.db
        .updateTable("instances")
        .set({ last_seen_at: clock.now().toISOString() })
        .execute();
      await database.db
        .updateTable("jobs")
        .set({ lease_until: new Date(clock.now().getTime() + 30_000).toISOString() })
        .where("id", "=", claimed?.id ?? "")
        .execute();
      expect(await runner.runDue()).toBe(0);
    }
  });

  it("never lets two instances on one database file claim the same job", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-claims-"));
    const file = join(dir, "claims.db");
    const handles = [await openDatabase(file), await openDatabase(file), await openDatabase(file)];
    try {
      const first = handles[0];
      if (!first) throw new Error("no database");
      for (let i = 0; i < 60; i++) {
        await enqueueJob(first.db, clock, { kind: "work", payload: { i } });
      }
      const claims = await Promise.all(
        handles.map(async (handle, n) => {
          const mine: string[] = [];
          for (;;) {
            const job = await claimJob(handle.db, clock, `ins_${n}`, 30_000);
            if (!job) return mine;
            mine.push(job.id);
          }
        }),
      );
      const all = claims.flat();
      expect(all).toHaveLength(60);
      expect(new Set(all).size).toBe(60);
      expect(claims.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
    } finally {
      for (const handle of handles) await handle.close();
    }
  });

  it("refuses the checkpoint of a worker whose job was taken over, rolling back its work", async () => {
    const id = await enqueueJob(database.db, clock, { kind: "work", payload: {} });
    await claimJob(database.db, clock, "ins_slow", 30_000);
    clock.advance(30_001);
    expect((await claimJob(database.db, clock, "ins_fast", 30_000))?.id).toBe(id);
    await expect(
      database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable("jobs")
          .set({ last_error: "written by the slow worker" })
          .where("id", "=", id)
          .execute();
        await checkpointJob(trx, clock, { jobId: id, owner: "ins_slow" }, { at: 5 }, 30_000);
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect(await state(id)).toMatchObject({ lease_owner: "ins_fast", last_error: null });
  });

  it("stops running a job another instance took over while this one was stalled, and leaves it to the new owner", async () => {
    const { promise: running, resolve: started } = signal();
    let stoppedBy: unknown;
    const runner = new JobRunner({
      db: database.db,
      clock,
      heartbeatMs: 5,
      handlers: {
        long: async (_job, ctx) => {
          started();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          stoppedBy = "lost lease";
          return { state: "interrupted" };
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "long", payload: {} });
    await runner.start();
    try {
      await running;
      // What a takeover leaves behind: the job running under another instance's lease.
      await database.db
        .updateTable("jobs")
        .set({ lease_owner: "ins_new_owner" })
        .where("id", "=", id)
        .execute();
      await vi.waitFor(() => expect(stoppedBy).toBe("lost lease"), { timeout: 2000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await state(id)).toMatchObject({ state: "running", lease_owner: "ins_new_owner" });
    } finally {
      await runner.stop();
    }
  });

  it("hands its jobs back to the queue and leaves the instances on a graceful stop", async () => {
    const { promise: running, resolve: started } = signal();
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        long: async (_job, ctx) => {
          started();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          return { state: "interrupted" };
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "long", payload: {} });
    await runner.start();
    await running;
    expect(await database.db.selectFrom("instances").select("id").execute()).toEqual([
      { id: runner.instanceId },
    ]);
    expect((await state(id)).lease_owner).toBe(runner.instanceId);
    await runner.stop();
    expect(await state(id)).toMatchObject({
      state: "queued",
      lease_owner: null,
      lease_until: null,
    });
    expect(await database.db.selectFrom("instances").select("id").execute()).toEqual([]);
  });

  it("keeps its heartbeat while a stopping handler finishes its send, so no other instance takes the job over meanwhile", async () => {
    const { promise: running, resolve: started } = signal();
    const { promise: sendAnswered, resolve: finishSend } = signal();
    const runner = new JobRunner({
      db: database.db,
      clock,
      heartbeatMs: 5,
      handlers: {
        // A send to Meta already under way when the stop comes: it ends before the handler does.
        long: async (_job, ctx) => {
          started();
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          await sendAnswered;
          return { state: "interrupted" };
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "long", payload: {} });
    await runner.start();
    await running;
    const stopping = runner.stop();
    // The send takes longer than other instances wait for a heartbeat (20 s).
    clock.advance(25_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = new JobRunner({
      db: database.db,
      clock,
      handlers: { long: async () => ({ state: "done" }) },
    });
    expect(await other.runDue()).toBe(0);
    expect((await state(id)).lease_owner).toBe(runner.instanceId);
    finishSend();
    await stopping;
    expect(await state(id)).toMatchObject({ state: "queued", lease_owner: null });
    expect(await database.db.selectFrom("instances").select("id").execute()).toEqual([]);
  });

  it("retries a handler that throws with growing delays, then records the failure", async () => {
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        broken: async () => {
          throw new Error("disk on fire");
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "broken", payload: {} });
    for (let i = 0; i < 4; i++) {
      await runner.runDue();
      expect((await state(id)).state).toBe("queued");
      clock.advance(120_000);
    }
    await runner.runDue();
    const row = await state(id);
    expect(row.state).toBe("failed");
    expect(row.attempts).toBe(5);
    expect(row.last_error).toContain("disk on fire");
  });

  it("gives up only after five claims in a row without progress: a checkpoint starts the count over", async () => {
    let calls = 0;
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        // Fails at every claim, but the fifth saves progress before it fails.
        bumpy: async (_job, ctx) => {
          calls += 1;
          if (calls === 5) await ctx.checkpoint(ctx.db, { upTo: calls });
          throw new Error(`passing fault ${calls}`);
        },
      },
    });
    const id = await enqueueJob(database.db, clock, { kind: "bumpy", payload: {} });
    for (let i = 0; i < 8; i++) {
      await runner.runDue();
      expect((await state(id)).state, `claim ${i + 1}`).toBe("queued");
      clock.advance(120_000);
    }
    await runner.runDue();
    expect(await state(id)).toMatchObject({ state: "failed", attempts: 5 });
    expect(calls).toBe(9);
  });

  it("re-queues a job its handler left unfinished because the service was stopping", async () => {
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        long: async (_job, ctx) => {
          await ctx.checkpoint(ctx.db, { upTo: 10 });
          return ctx.signal.aborted ? { state: "interrupted" } : { state: "done" };
        },
      },
    });
    await runner.stop();
    const id = await enqueueJob(database.db, clock, { kind: "long", payload: {} });
    await runner.runDue();
    const row = await state(id);
    expect(row.state).toBe("queued");
    expect(JSON.parse(row.checkpoint ?? "null")).toEqual({ upTo: 10 });
  });

  it("leaves a job of a kind it has no handler for to an instance that has one (a newer release)", async () => {
    let ran!: () => void;
    const done = new Promise<void>((resolve) => {
      ran = resolve;
    });
    const runner = new JobRunner({
      db: database.db,
      clock,
      handlers: {
        known: async () => {
          ran();
          return { state: "done" };
        },
      },
    });
    // Older than the known job: a claim of any kind would take it first.
    const newer = await enqueueJob(database.db, clock, {
      kind: "from_a_newer_release",
      payload: {},
    });
    await enqueueJob(database.db, clock, { kind: "known", payload: {} });
    await runner.start();
    await done;
    await runner.stop();
    expect(await state(newer)).toMatchObject({ state: "queued", attempts: 0, last_error: null });
  });

  it("fails a job of an unknown kind with the reason when asked to run every due job (tests)", async () => {
    const runner = new JobRunner({ db: database.db, clock, handlers: {} });
    const id = await enqueueJob(database.db, clock, { kind: "mystery", payload: {} });
    await runner.runDue();
    expect(await state(id)).toMatchObject({
      state: "failed",
      last_error: "no handler for job kind 'mystery'",
    });
  });

  it("reports polls that keep failing once when they begin, not once each", async () => {
    const handle = await openDatabase(":memory:");
    const errors: unknown[] = [];
    const runner = new JobRunner({
      db: handle.db,
      clock,
      pollMs: 10,
      handlers: { work: async () => ({ state: "done" }) },
      onError: (error) => errors.push(error),
    });
    await runner.start();
    // Every query fails from now on: about 30 polls in 300 ms.
    await handle.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(errors).toHaveLength(1);
    await runner.stop();
  });

  it("keeps running when the database is busy, reports it, and catches up once it is free", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-jobs-"));
    const file = join(dir, "busy.db");
    const handle = await openDatabase(file);
    try {
      sqliteHandleOf(handle.db).pragma("busy_timeout = 0");
      const done: string[] = [];
      const errors: unknown[] = [];
      const runner = new JobRunner({
        db: handle.db,
        clock,
        pollMs: 10,
        handlers: {
          work: async (job) => {
            done.push(job.id);
            return { state: "done" };
          },
        },
        onError: (error) => errors.push(error),
      });
      const id = await enqueueJob(handle.db, clock, { kind: "work", payload: {} });
      const other = new BetterSqlite3(file);
      other.exec("BEGIN EXCLUSIVE");
      await runner.start();
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(String(errors[0])).toMatch(/database is locked/);
      other.exec("COMMIT");
      other.close();
      await vi.waitFor(() => expect(done).toEqual([id]), { timeout: 10_000 });
      await runner.stop();
    } finally {
      await handle.close();
    }
  });
});

/** A promise and what settles it, for a test to wait for a handler's step (Node 20 has no Promise.withResolvers). */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
