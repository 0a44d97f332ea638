import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { campaignRunHandler } from "../../src/service/domain/campaign-engine.js";
import { unlimitedThroughput } from "../../src/service/domain/channel-throughput.js";
import { JobRunner } from "../../src/service/jobs/job-runner.js";
import type { MessageSender } from "../../src/service/messaging/message-sender.js";
import { type CloudWorld, cloudWorld } from "./world.js";

/** Campaigns of one workspace send their batches in turn (the month's quota holds between them). */
describe("campaigns of one workspace taking turns", () => {
  let w: CloudWorld;
  let channelId: string;
  beforeEach(async () => {
    w = await cloudWorld();
    channelId = (await w.connect()).id;
    await w.approvedTemplate();
  });
  afterEach(() => w.close());

  const launched = async (name: string): Promise<string> => {
    const draft = await w.post("/campaigns", {
      name,
      channel_id: channelId,
      template_name: "spring_news",
      template_language: "en_US",
      audience: { all: true },
      variable_mapping: { "1": "first_name", "2": "custom.code" },
    });
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    return draft.id as string;
  };

  it("sends nothing of a campaign cancelled while it waited for its turn", async () => {
    await w.contact("+4915112345671", { first_name: "Ada", custom_fields: { code: "A-1" } });
    await w.contact("+4915112345672", { first_name: "Bob", custom_fields: { code: "B-2" } });
    const a = await launched("A");
    const b = await launched("B");
    // The first campaign's batch is held at the operator until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first: string | undefined;
    const sentTo: string[] = [];
    const sender: MessageSender = {
      exactlyOnce: () => true,
      send: async (messages) => {
        const campaign = messages[0]?.recipientId.split(":")[0] ?? "";
        first ??= campaign;
        if (campaign === first) await held;
        sentTo.push(...messages.map((m) => m.recipientId));
        return messages.map((_, i) => ({
          status: "accepted" as const,
          providerMessageId: `wamid.${campaign}.${i}`,
        }));
      },
    };
    const runner = () =>
      new JobRunner({
        db: w.t.database.db,
        clock: w.t.clock,
        handlers: {
          "campaign.run": campaignRunHandler({
            db: w.t.database.db,
            clock: w.t.clock,
            throttles: unlimitedThroughput,
            sender,
          }),
        },
      });
    // Two loops, as two instances: one sends, the other waits for the workspace's turn.
    const runs = Promise.all([runner().runDue(1), runner().runDue(1)]);
    while (first === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = first === a ? b : a;
    await w.post(`/campaigns/${other}/cancel`, undefined, 200);
    release();
    await runs;
    expect(sentTo.filter((id) => id.startsWith(`${other}:`))).toEqual([]);
    expect(sentTo.filter((id) => id.startsWith(`${first}:`))).toHaveLength(2);
  });
});
