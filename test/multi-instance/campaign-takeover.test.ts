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
 * A campaign sent by three instances on one database, whose sending instance dies mid-send
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
    const world = await campaignWorld(first.url, service.token, service.database, recipients);
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
    const victim = (await service.holderOf("campaign.run"))?.service;
    expect(victim).toBeDefined();
    victim?.process.kill("SIGKILL");
    await victim?.process;
    expect(before.queued).toBeGreaterThan(0);

    const survivor = service.all.find((s) => s !== victim) ?? first;
    const call = api(survivor.url, service.token);
    await until(
      "the campaign to be completed by another instance",
      async () =>
        (await call("GET", `${world.base}/campaigns/${campaign.id}`)).status === "completed"
          ? true
          : undefined,
      { timeoutMs: 60_000, everyMs: 100 },
    ).catch(async (error: Error) => {
      // What the run's job and its recipients were left as, so a failure says where it stuck.
      const jobs = await service.db
        .selectFrom("jobs")
        .select(["state", "attempts", "lease_owner", "lease_until", "run_at", "last_error"])
        .where("kind", "=", "campaign.run")
        .execute();
      const states = await service.db
        .selectFrom("campaign_recipients")
        .select((eb) => ["state", eb.fn.countAll<number>().as("n")])
        .where("campaign_id", "=", campaign.id)
        .groupBy("state")
        .execute();
      const instances = await service.db.selectFrom("instances").selectAll().execute();
      throw new Error(
        `${error.message}; jobs ${JSON.stringify(jobs)}; recipients ${JSON.stringify(states)}; instances ${JSON.stringify(instances)}`,
      );
    });
    const after = (await call("GET", statsPath)) as unknown as Stats;
    expect(after).toMatchObject({ sent: recipients, failed: 0, queued: 0 });
    // Every recipient's row holds one outcome, a message the operator accepted (and has since
    // reported delivered or read), each under a message id of its own.
    const outcomes = await service.db
      .selectFrom("campaign_recipients")
      .select((eb) => [
        eb.fn.countAll<number>().as("n"),
        eb.fn.count<number>("provider_message_id").distinct().as("messages"),
      ])
      .where("campaign_id", "=", campaign.id)
      .where("state", "in", ["sent", "delivered", "read"])
      .executeTakeFirstOrThrow();
    expect(outcomes).toEqual({ n: recipients, messages: recipients });
    const messages = await service.db
      .selectFrom("sandbox_messages")
      .select((eb) => [
        eb.fn.countAll<number>().as("n"),
        eb.fn.count<number>("to_phone").distinct().as("phones"),
      ])
      .executeTakeFirstOrThrow();
    expect(messages).toEqual({ n: recipients, phones: recipients });
  }, 120_000);
});
