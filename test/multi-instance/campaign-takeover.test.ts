import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../crash/crash-support.js";
import { api, campaignWorld } from "../helpers/campaign-world.js";
import { type Instances, startInstances } from "./instances.js";

interface Stats {
  sent: number;
  failed: number;
  queued: number;
}

const recipients = 3000;

/**
 * A campaign sent by one of three instances on one database, whose instance dies mid-send
 * (SIGKILL): another instance takes the job over and finishes it, and every recipient still gets
 * exactly one message.
 */
describe("a campaign whose instance dies mid-send", () => {
  let service: Instances;
  beforeAll(async () => {
    service = await startInstances(3, ["--review-delay", "0", "--throughput", "300"]);
  }, 60_000);
  afterAll(() => service?.close(), 60_000);

  it("is finished by another instance: every recipient gets one message, none twice", async () => {
    const [first] = service.all as [Instances["all"][number]];
    const world = await campaignWorld(first.url, service.token, service.dbFile, recipients);
    const campaign = await world.campaign();
    await world.call("POST", `${world.base}/campaigns/${campaign.id}/launch`);
    const statsPath = `${world.base}/campaigns/${campaign.id}/stats`;
    const before = await until(
      "sending to be well under way",
      async () => {
        const stats = (await world.call("GET", statsPath)) as unknown as Stats;
        return stats.sent >= 600 ? stats : undefined;
      },
      { timeoutMs: 60_000, everyMs: 25 },
    );
    const [owner] = service.query<{ pid: number }>(
      "SELECT i.pid FROM jobs j JOIN instances i ON i.id = j.lease_owner WHERE j.kind = 'campaign.run' AND j.state = 'running'",
    );
    const victim = service.all.find((s) => s.process.pid === owner?.pid);
    expect(victim).toBeDefined();
    victim?.process.kill("SIGKILL");
    await victim?.process;
    expect(before.queued).toBeGreaterThan(0);

    const survivor = service.all.find((s) => s !== victim) ?? first;
    const call = api(survivor.url, service.token);
    const after = await until(
      "the campaign to finish on another instance",
      async () => {
        const stats = (await call("GET", statsPath)) as unknown as Stats;
        return stats.queued === 0 ? stats : undefined;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    expect(after).toMatchObject({ sent: recipients, failed: 0, queued: 0 });
    expect((await call("GET", `${world.base}/campaigns/${campaign.id}`)).status).toBe("completed");
    const [messages] = service.query<{ n: number; phones: number }>(
      "SELECT count(*) AS n, count(DISTINCT to_phone) AS phones FROM sandbox_messages",
    );
    expect(messages).toEqual({ n: recipients, phones: recipients });
  }, 120_000);
});
