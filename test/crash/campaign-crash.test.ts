import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { api, campaignWorld } from "../helpers/campaign-world.js";
import { startServe } from "../helpers/serve.js";

interface Stats {
  sent: number;
  failed: number;
  queued: number;
}

const recipients = 4000;

describe("crash safety of sending", () => {
  it("resumes a campaign killed mid-send: every consenting recipient gets exactly one message", async () => {
    const args = ["--review-delay", "0", "--throughput", "400"];
    const first = await startServe({ args });
    const world = await campaignWorld(first.url, first.token, first.dbFile, recipients);
    const campaign = await world.campaign();
    await world.call("POST", `${world.base}/campaigns/${campaign.id}/launch`);
    const statsPath = `${world.base}/campaigns/${campaign.id}/stats`;

    // Kill the service without warning once sending is well under way.
    let before: Stats;
    for (;;) {
      before = (await world.call("GET", statsPath)) as unknown as Stats;
      if (before.sent >= 800) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    first.process.kill("SIGKILL");
    await first.process;
    expect(before.queued).toBeGreaterThan(0);

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    try {
      const resumed = { ...world, call: api(second.url, second.token) };
      let after: Stats;
      const deadline = Date.now() + 60_000;
      for (;;) {
        after = (await resumed.call("GET", statsPath)) as unknown as Stats;
        if (after.queued === 0 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const done = await resumed.call("GET", `${world.base}/campaigns/${campaign.id}`);
      expect(done.status).toBe("completed");
      expect(after).toMatchObject({ sent: recipients, failed: 0, queued: 0 });

      const db = new BetterSqlite3(first.dbFile, { readonly: true });
      try {
        const messages = db
          .prepare("SELECT count(*) AS n, count(DISTINCT to_phone) AS phones FROM sandbox_messages")
          .get() as { n: number; phones: number };
        expect(messages).toEqual({ n: recipients, phones: recipients });
        // Every recipient was handed over once (later reports may have moved it to delivered or read).
        const handedOver = db
          .prepare(
            "SELECT count(*) AS n, count(DISTINCT provider_message_id) AS ids FROM campaign_recipients WHERE state IN ('sent', 'delivered', 'read')",
          )
          .get();
        expect(handedOver).toEqual({ n: recipients, ids: recipients });
      } finally {
        db.close();
      }
    } finally {
      await second.stop();
    }
  }, 120_000);
});
