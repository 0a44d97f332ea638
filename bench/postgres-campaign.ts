import { campaignWorld } from "../test/helpers/campaign-world.js";
import { postgresCpuSeconds } from "./closed-loop.js";
import { benchDatabase } from "./postgres.js";
import { cpuSeconds, loadAverage, startServiceOn } from "./support.js";

interface Stats {
  sent: number;
  failed: number;
  queued: number;
}

/**
 * Issue 12's dispatch figure, with campaign-throughput.ts's approach on PostgreSQL: a campaign
 * to `recipients` opted-in contacts (written straight into the database) sent by
 * `serve --database <url> --throughput 0` to the sandbox operator, timed from launch until
 * every recipient is sent or failed.
 */
export async function postgresCampaign(
  recipients = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 100_000),
) {
  const database = await benchDatabase("campaign");
  const service = await startServiceOn(
    ["--database", database.url],
    ["--review-delay", "0", "--throughput", "0"],
  );
  try {
    const world = await campaignWorld(service.url, service.token, database.url, recipients);
    const campaign = await world.campaign();
    const loadBefore = loadAverage();
    const port = Number(new URL(database.url).port);
    const cpuBefore = cpuSeconds(service.child.pid);
    const postgresBefore = postgresCpuSeconds(port);
    const started = performance.now();
    await world.call("POST", `${world.base}/campaigns/${campaign.id}/launch`);
    const path = `${world.base}/campaigns/${campaign.id}/stats`;
    let current: Stats;
    for (;;) {
      current = (await world.call("GET", path)) as unknown as Stats;
      if (current.queued === 0 && current.sent + current.failed >= recipients) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = current.sent / seconds;
    return {
      name: `campaign of ${recipients.toLocaleString("en-US")} recipients on PostgreSQL, no throughput limit, sandbox operator`,
      recipients,
      sent: current.sent,
      failed: current.failed,
      seconds: Number(seconds.toFixed(2)),
      messages_per_second: Math.round(rate),
      goal: ">= 5000 messages/s",
      service_cpu_cores: Number(((cpuSeconds(service.child.pid) - cpuBefore) / seconds).toFixed(2)),
      postgres_cpu_cores: Number(
        ((postgresCpuSeconds(port) - postgresBefore) / seconds).toFixed(2),
      ),
      load_average_before: loadBefore,
      load_average_after: loadAverage(),
      note: "one run on a shared 2-core machine, PostgreSQL (fsync off) on the same machine",
      misses: [
        rate >= 5000 ? null : "messages/s",
        current.sent === recipients ? null : "not every recipient sent",
      ].filter((m) => m !== null),
    };
  } finally {
    await service.stop();
    await database.drop();
  }
}
