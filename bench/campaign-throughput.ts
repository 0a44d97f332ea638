import { join } from "node:path";
import { campaignWorld } from "../test/helpers/campaign-world.js";
import { startService } from "./support.js";

interface Stats {
  sent: number;
  failed: number;
  queued: number;
}

type Call = Awaited<ReturnType<typeof campaignWorld>>["call"];

async function stats(call: Call, path: string): Promise<Stats> {
  return (await call("GET", path)) as unknown as Stats;
}

/** Messages per second dispatched to the sandbox for 100,000 recipients with no throughput limit. */
export async function campaignUnthrottled(recipients = 100_000) {
  const service = await startService(["--review-delay", "0", "--throughput", "0"]);
  try {
    const world = await campaignWorld(
      service.url,
      service.token,
      join(service.dir, "bench.db"),
      recipients,
    );
    const campaign = await world.campaign();
    const started = performance.now();
    await world.call("POST", `${world.base}/campaigns/${campaign.id}/launch`);
    let current: Stats;
    for (;;) {
      current = await stats(world.call, `${world.base}/campaigns/${campaign.id}/stats`);
      if (current.queued === 0 && current.sent + current.failed >= recipients) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = current.sent / seconds;
    return {
      name: "campaign of 100,000 recipients, no throughput limit",
      recipients,
      sent: current.sent,
      seconds: Number(seconds.toFixed(2)),
      messages_per_second: Math.round(rate),
      goal: ">= 5000 messages/s",
      pass: rate >= 5000 && current.sent === recipients,
    };
  } finally {
    await service.stop();
  }
}

/** The rate of a campaign under the default per-channel limit (80/s), over a minute's window. */
export async function campaignThrottled(windowSeconds = 60) {
  const service = await startService(["--review-delay", "0"]);
  try {
    const recipients = 80 * (windowSeconds + 15);
    const world = await campaignWorld(
      service.url,
      service.token,
      join(service.dir, "bench.db"),
      recipients,
    );
    const campaign = await world.campaign();
    await world.call("POST", `${world.base}/campaigns/${campaign.id}/launch`);
    const path = `${world.base}/campaigns/${campaign.id}/stats`;
    // The window opens once sending is under way, so start-up does not count.
    let first = await stats(world.call, path);
    while (first.sent === 0) {
      await new Promise((r) => setTimeout(r, 20));
      first = await stats(world.call, path);
    }
    const opened = performance.now();
    await new Promise((r) => setTimeout(r, windowSeconds * 1000));
    const last = await stats(world.call, path);
    const rate = (last.sent - first.sent) / ((performance.now() - opened) / 1000);
    return {
      name: "campaign at the default throughput limit (80/s per channel)",
      window_seconds: windowSeconds,
      messages_per_second: Number(rate.toFixed(1)),
      deviation_percent: Number(((Math.abs(rate - 80) / 80) * 100).toFixed(1)),
      goal: "within 5% of 80/s",
      pass: Math.abs(rate - 80) / 80 <= 0.05,
    };
  } finally {
    await service.stop();
  }
}
