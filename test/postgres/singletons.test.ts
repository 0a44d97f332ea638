import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "../../src/service/bootstrap.js";
import { demoCatalogue } from "../../src/service/catalogue/demo-catalogue.js";
import { openDatabase } from "../../src/service/db/database.js";
import { systemClock } from "../../src/service/domain/clock.js";
import { loadCatalogue } from "../../src/service/domain/plans.js";
import { lifecycleSweepJob } from "../../src/service/jobs/job-kinds.js";
import { scheduleLifecycleSweep } from "../../src/service/jobs/lifecycle-sweep-job.js";
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

describe("first start of several instances on an empty database", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
  });
  afterAll(() => target.drop());

  it("creates one reseller account with the bootstrap token and one catalogue", async () => {
    const instances = await Promise.all([1, 2, 3, 4].map(() => openDatabase(target.url)));
    try {
      // A catalogue already there (an earlier start that stopped before creating the account):
      // the instances then race for the account alone.
      const [first] = instances;
      if (first) await loadCatalogue(first.db, systemClock, demoCatalogue);
      const results = await Promise.all(
        instances.map((i) =>
          bootstrap(i.db, systemClock, { bootstrapToken: "rsk_shared_first_token" }),
        ),
      );
      expect(results.filter((r) => r.createdToken !== null)).toHaveLength(1);
      const db = instances[0]?.db;
      expect(await db?.selectFrom("resellers").select("id").execute()).toHaveLength(1);
      const slugs = (await db?.selectFrom("plans").select("slug").execute())?.map((p) => p.slug);
      expect(new Set(slugs).size).toBe(slugs?.length);
    } finally {
      await Promise.all(instances.map((i) => i.close()));
    }
  });
});
