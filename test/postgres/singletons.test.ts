import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { systemClock } from "../../src/service/domain/clock.js";
import { lifecycleSweepJob, scheduleLifecycleSweep } from "../../src/service/domain/trials.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";

describe("work that must exist once, with several instances", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    target = await createTestDatabase();
  });
  afterAll(() => target.drop());

  it("queues one lifecycle sweep when four instances start at the same moment", async () => {
    const instances = await Promise.all([1, 2, 3, 4].map(() => openDatabase(target.url)));
    try {
      await Promise.all(instances.map((i) => scheduleLifecycleSweep(i.db, systemClock)));
      const sweeps = await instances[0]?.db
        .selectFrom("jobs")
        .select("id")
        .where("kind", "=", lifecycleSweepJob)
        .execute();
      expect(sweeps).toHaveLength(1);
    } finally {
      await Promise.all(instances.map((i) => i.close()));
    }
  });
});
