import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../crash/crash-support.js";
import { api, writeContacts } from "../helpers/campaign-world.js";
import { onePlanCatalogue } from "../helpers/plans-file.js";
import { type Instances, startInstances } from "./instances.js";

const quota = 40;
// Each campaign fits the quota at its launch; together they are over twice it.
const contacts = 30;
const campaigns = 3;

interface Stats {
  sent: number;
  failed: number;
  queued: number;
}

/**
 * A workspace's monthly quota is the workspace's, not an instance's: its campaigns, launched
 * through different instances and sent by them at once, send no more than it together.
 */
describe("the monthly message quota of several instances", () => {
  let service: Instances;
  beforeAll(async () => {
    service = await startInstances(2, [
      "--review-delay",
      "0",
      "--plans",
      onePlanCatalogue({
        key: "messages_per_month",
        name: "Messages",
        type: "quota",
        value: quota,
      }),
    ]);
  }, 60_000);
  afterAll(() => service?.close(), 60_000);

  it("sends no more than the quota when a workspace's campaigns run on several instances at once", async () => {
    const [first, second] = service.all.map((s) => api(s.url, service.token));
    if (!first || !second) throw new Error("two instances expected");
    const ws = await first("POST", "/api/v1/workspaces", {
      name: "Metered",
      contact_email: "m@example.test",
      plan_id: "1",
      send_invitation: false,
    });
    const base = `/api/v1/workspaces/${ws.id}`;
    const channel = await first("POST", `${base}/channels`, { phone: "+4915112340000" });
    const template = await first("POST", `${base}/templates`, {
      name: "metered_news",
      category: "marketing",
      language: "en",
      components: [{ type: "BODY", text: "News for you." }],
    });
    await until(
      "the template's approval",
      async () =>
        (await first("GET", `${base}/templates/${template.id}`)).status === "approved" || undefined,
      { timeoutMs: 10_000, everyMs: 50 },
    );
    await writeContacts(service.database, ws.id, contacts);
    // Scheduled for one moment, so their runs start together on whichever instances claim them
    // (a launch counts the campaigns already sending, and would refuse the later ones).
    const at = new Date(Date.now() + 3_000).toISOString().replace(/\.\d+Z$/, "Z");
    const ids: string[] = [];
    for (let i = 0; i < campaigns; i++) {
      const campaign = await (i % 2 === 0 ? first : second)("POST", `${base}/campaigns`, {
        name: `Share ${i}`,
        channel_id: channel.id,
        template_name: "metered_news",
        template_language: "en",
        audience: { all: true },
        scheduled_at: at,
      });
      ids.push(campaign.id);
    }
    const stats = await until(
      "every campaign to finish",
      async () => {
        const all = await Promise.all(
          ids.map(
            async (id) => (await first("GET", `${base}/campaigns/${id}/stats`)) as unknown as Stats,
          ),
        );
        return all.every((s) => s.queued === 0 && s.sent + s.failed === contacts) ? all : undefined;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    expect(stats.reduce((sum, s) => sum + s.sent, 0)).toBe(quota);
    const accepted = await service.db
      .selectFrom("sandbox_messages")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("channel_id", "=", channel.id)
      .executeTakeFirstOrThrow();
    expect(Number(accepted.n)).toBe(quota);
  }, 120_000);
});
