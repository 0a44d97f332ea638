import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import { SharedChannelThroughput } from "../../src/service/domain/channel-throughput.js";

describe("a channel's throughput limit shared by every instance", () => {
  let database: DatabaseHandle;
  let now = 0;
  beforeEach(async () => {
    database = await openDatabase(":memory:");
    now = Date.UTC(2026, 10, 29, 12, 0, 0);
  });
  afterEach(() => database.close());

  /** Two instances' limiters on one database, reading the same clock. */
  const instances = () => [
    new SharedChannelThroughput(database.db, 80, () => now),
    new SharedChannelThroughput(database.db, 80, () => now),
  ];

  it("grants a second's budget once, whichever instance asks", async () => {
    const [a, b] = instances();
    now += 100;
    expect((await a?.take("ch_1", 60))?.granted).toBe(60);
    expect((await b?.take("ch_1", 60))?.granted).toBe(20);
    const none = await a?.take("ch_1", 60);
    expect(none?.granted).toBe(0);
    expect(none?.waitMs).toBe(901);
    // Another channel has its own budget.
    expect((await b?.take("ch_2", 80))?.granted).toBe(80);
  });

  it("grants nothing at the very end of a second, whose messages would land in the next one on top of its budget", async () => {
    const [a, b] = instances();
    now += 900;
    const late = await a?.take("ch_1", 80);
    expect(late).toMatchObject({ granted: 0, waitMs: 101 });
    now += 101;
    // The next second's first claim takes its whole budget: the rate stays the limit.
    expect((await a?.take("ch_1", 80))?.granted).toBe(80);
    expect((await b?.take("ch_1", 80))?.granted).toBe(0);
  });
});
