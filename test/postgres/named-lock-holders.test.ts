import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionNameOf, processSpace } from "../../src/service/db/connection-names.js";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { withNamedLock } from "../../src/service/db/write-conflicts.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

/**
 * A workspace's campaign sends take turns across instances under a PostgreSQL session lock. The
 * server keeps the connection of a frozen or cut-off instance (SIGSTOP, a host off the network),
 * and its lock with it, until TCP gives up: another instance that took the campaign over ends
 * that connection once the instance is dead by its heartbeats, and never a live one's.
 */
describe("a named lock held by another instance's connection", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: DatabaseHandle;
  beforeAll(async () => {
    target = await createTestDatabase();
    database = await openDatabase(target.url);
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  const startedMs = Date.now() - 60_000;
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  /** A connection named as an instance's process `pid` names its own, holding `name`. */
  async function holder(pid: number, name: string, started = startedMs): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: target.url,
      application_name: connectionNameOf(pid, started, processSpace),
    });
    // Ended by the server in the test that expects it: not an error of the test.
    client.on("error", () => {});
    await client.connect();
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [name]);
    return client;
  }

  async function instance(id: string, pid: number, lastSeenMsAgo: number): Promise<void> {
    await database.db
      .insertInto("instances")
      .values({
        id,
        host: processSpace,
        pid,
        started_at: ago(50_000),
        last_seen_at: ago(lastSeenMsAgo),
      })
      .execute();
  }

  it("ends the connection of an instance whose heartbeats stopped, and takes the lock", async () => {
    await instance("ins_frozen", 990_001, 25_000);
    const frozen = await holder(990_001, "campaign-sends:ws_frozen");
    const started = Date.now();
    const ran = await withNamedLock(database.db, "campaign-sends:ws_frozen", async () => "sent");
    expect(ran).toBe("sent");
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(frozen.query("SELECT 1")).rejects.toThrow();
  });

  it("waits for a live instance's connection, and for a process that never beat", async () => {
    await instance("ins_alive", 990_002, 1_000);
    const alive = await holder(990_002, "campaign-sends:ws_alive");
    // No instance row of its own: a process starting up, before its first heartbeat; the dead
    // row of an earlier process with the same pid (a restarted container's pid 1) is not its.
    await instance("ins_earlier", 990_003, 25_000);
    const starting = await holder(990_003, "campaign-sends:ws_starting", Date.now());
    try {
      for (const name of ["campaign-sends:ws_alive", "campaign-sends:ws_starting"]) {
        const waiting = withNamedLock(database.db, name, async () => "ran");
        const outcome = await Promise.race([
          waiting,
          new Promise((resolve) => setTimeout(() => resolve("still waiting"), 4_500)),
        ]);
        expect(outcome).toBe("still waiting");
        const holding = name.endsWith("alive") ? alive : starting;
        expect((await holding.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
        // Let go: the waiter takes the lock and runs.
        await holding.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
        await expect(waiting).resolves.toBe("ran");
      }
    } finally {
      await alive.end();
      await starting.end();
    }
  }, 20_000);
});
