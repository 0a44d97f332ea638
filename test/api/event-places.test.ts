import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventsPlacedPerRun, sequenceEvents } from "../../src/service/domain/events.js";
import { newId } from "../../src/service/domain/ids.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * Events get their place in the live stream's order after they commit, and only while a stream
 * is open; the first stream after a quiet time may find many waiting.
 */
describe("placing events in the live stream's order", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("places a backlog larger than one run, every event once, in the order of their ids", async () => {
    const ws = await t.createWorkspace({ name: "Busy" });
    const { reseller_id: resellerId } = await t.database.db
      .selectFrom("workspaces")
      .select("reseller_id")
      .where("id", "=", ws)
      .executeTakeFirstOrThrow();
    await sequenceEvents(t.database.db);
    const waiting = eventsPlacedPerRun * 2 + 1;
    const ids = Array.from({ length: waiting }, () => newId("evt"));
    for (let at = 0; at < ids.length; at += 500) {
      await t.database.db
        .insertInto("events")
        .values(
          ids.slice(at, at + 500).map((id) => ({
            id,
            reseller_id: resellerId,
            workspace_id: ws,
            type: "contact.opted_in",
            data: "{}",
            created_at: "2026-11-22T09:30:00Z",
            seq: null,
          })),
        )
        .execute();
    }
    await sequenceEvents(t.database.db);
    const rows = await t.database.db
      .selectFrom("events")
      .select(["id", "seq"])
      .orderBy("seq")
      .execute();
    expect(rows.every((row) => row.seq !== null)).toBe(true);
    const seqs = rows.map((row) => Number(row.seq));
    // Consecutive places from the first on, the waiting events after the placed ones by id.
    expect(seqs).toEqual(Array.from({ length: rows.length }, (_, i) => (seqs[0] ?? 0) + i));
    expect(rows.slice(-waiting).map((row) => row.id)).toEqual(ids);
    const counter = await t.database.db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", "event_sequence")
      .executeTakeFirstOrThrow();
    expect(Number(counter.value)).toBe(seqs.at(-1));
  });
});
