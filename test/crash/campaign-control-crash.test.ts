import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { api, campaignWorld } from "../helpers/campaign-world.js";
import { startServe } from "../helpers/serve.js";

interface Stats {
  sent: number;
  failed: number;
  queued: number;
  cancelled: number;
}

const recipients = 4000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sandboxMessages(dbFile: string): { n: number; phones: number } {
  const db = new BetterSqlite3(dbFile, { readonly: true });
  try {
    return db
      .prepare("SELECT count(*) AS n, count(DISTINCT to_phone) AS phones FROM sandbox_messages")
      .get() as { n: number; phones: number };
  } finally {
    db.close();
  }
}

describe("crash safety of campaign control", () => {
  it("pause, crash, resume and cancel: at most one message per recipient, every one accounted for", async () => {
    const args = ["--review-delay", "0", "--throughput", "400"];
    const first = await startServe({ args });
    const world = await campaignWorld(first.url, first.token, first.dbFile, recipients);
    const campaign = await world.campaign();
    const path = `${world.base}/campaigns/${campaign.id}`;
    await world.call("POST", `${path}/launch`);

    for (;;) {
      const stats = (await world.call("GET", `${path}/stats`)) as unknown as Stats;
      if (stats.sent >= 600) break;
      await sleep(50);
    }
    expect((await world.call("POST", `${path}/pause`)).status).toBe("paused");
    const atPause = sandboxMessages(first.dbFile).n;
    // The batch in flight finishes (seen as a count that held for a second, however long a
    // loaded machine takes); after that nothing more leaves.
    let pausedAt = sandboxMessages(first.dbFile).n;
    for (const until = Date.now() + 15_000; Date.now() < until; ) {
      await sleep(1000);
      const now = sandboxMessages(first.dbFile).n;
      if (now === pausedAt) break;
      pausedAt = now;
    }
    await sleep(1500);
    expect(sandboxMessages(first.dbFile).n).toBe(pausedAt);
    // At most the batch that was in flight (500 recipients) left after the pause.
    expect(pausedAt - atPause).toBeLessThanOrEqual(500);
    expect(pausedAt).toBeLessThan(recipients);

    // Resume, then kill the service without warning while it sends.
    await world.call("POST", `${path}/resume`);
    for (;;) {
      const stats = (await world.call("GET", `${path}/stats`)) as unknown as Stats;
      if (stats.sent >= pausedAt + 600) break;
      await sleep(50);
    }
    first.process.kill("SIGKILL");
    await first.process;

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    try {
      const call = api(second.url, second.token);
      // Cancel once the restarted service sends again.
      const before = sandboxMessages(first.dbFile).n;
      for (let i = 0; i < 200 && sandboxMessages(first.dbFile).n === before; i++) await sleep(50);
      const cancelled = await call("POST", `${path}/cancel`);
      expect(cancelled.status).toBe("cancelled");
      let stats: Stats;
      const deadline = Date.now() + 30_000;
      for (;;) {
        stats = (await call("GET", `${path}/stats`)) as unknown as Stats;
        if (stats.queued === 0 || Date.now() > deadline) break;
        await sleep(100);
      }
      await sleep(1000);
      const messages = sandboxMessages(first.dbFile);
      // One message per phone, each one counted as sent; the rest cancelled.
      expect(messages.n).toBe(messages.phones);
      expect(stats).toMatchObject({ queued: 0, failed: 0 });
      expect(stats.sent).toBe(messages.n);
      expect(stats.sent + stats.cancelled).toBe(recipients);
      expect(stats.cancelled).toBeGreaterThan(0);
      expect((await call("GET", path)).status).toBe("cancelled");
    } finally {
      await second.stop();
    }
  }, 120_000);
});
