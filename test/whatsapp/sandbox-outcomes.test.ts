import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CampaignStats } from "../../src/contract/campaigns.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** The sandbox's magic numbers for the Cloud API outcomes, through the same engine and event path. */
describe("sandbox magic numbers for the Cloud API outcomes", () => {
  let t: TestApp;
  let base: string;
  let channelId: string;
  beforeEach(async () => {
    t = await startTestApp();
    const ws = await t.createWorkspace({ plan_id: "2" });
    base = `/api/v1/workspaces/${ws}`;
    const post = async (path: string, body: unknown) =>
      (await t.request("POST", `${base}${path}`, { body })).json().data;
    channelId = (await post("/channels", { phone: "+4915112340000", name: "Main" })).id;
    await post("/templates", {
      name: "spring_news",
      category: "marketing",
      language: "en_US",
      components: [
        { type: "BODY", text: "Hello {{1}}, spring is here.", example: { body_text: [["Ada"]] } },
      ],
    });
    t.clock.advance(5000);
    await t.runJobs();
  });
  afterEach(() => t.close());

  async function run(...phones: string[]) {
    const ids: string[] = [];
    for (const [i, phone] of phones.entries()) {
      const res = await t.request("POST", `${base}/contacts`, {
        body: { phone, first_name: `P${i}`, opt_in_status: "opted_in" },
      });
      ids.push(res.json().data.id);
    }
    const draft = (
      await t.request("POST", `${base}/campaigns`, {
        body: {
          name: "Magic",
          channel_id: channelId,
          template_name: "spring_news",
          template_language: "en_US",
          audience: { all: true },
          variable_mapping: { "1": "first_name" },
        },
      })
    ).json().data;
    await t.request("POST", `${base}/campaigns/${draft.id}/launch`);
    await t.runJobs();
    const campaign = (await t.request("GET", `${base}/campaigns/${draft.id}`)).json().data;
    const stats = CampaignStats.parse(
      (await t.request("GET", `${base}/campaigns/${draft.id}/stats`)).json().data,
    );
    return { campaign, stats, ids };
  }

  it("sends a number ending 4004 after a throughput error", async () => {
    const { campaign, stats } = await run("+4915112344004");
    expect(campaign.status).toBe("completed");
    expect(stats).toMatchObject({ sent: 1, failed: 0 });
  });

  it("sends a number ending 4005 after a pair-rate error", async () => {
    const { stats } = await run("+4915112344005");
    expect(stats).toMatchObject({ sent: 1, failed: 0 });
  });

  it("fails the campaign as template_paused at a number ending 4006, and pauses the template", async () => {
    const { campaign } = await run("+4915112344006");
    expect(campaign).toMatchObject({ status: "failed", failure_reason: "template_paused" });
    const [template] = (await t.request("GET", `${base}/templates`)).json().data;
    expect(template.status).toBe("paused");
    // Recorded by the one template-status rule, so the reseller's systems hear of it too.
    const events = await t.database.db
      .selectFrom("events")
      .select("data")
      .where("type", "=", "template.status_changed")
      .execute();
    expect(events.map((e) => JSON.parse(e.data).status)).toContain("paused");
  });

  it("sends nothing after 4006 in the same batch, as the Cloud API adapter does", async () => {
    const { campaign, stats } = await run("+4915112345671", "+4915112344006", "+4915112345672");
    expect(campaign).toMatchObject({ status: "failed", failure_reason: "template_paused" });
    expect(stats).toMatchObject({ sent: 1, failed: 2 });
    const sent = await t.database.db.selectFrom("sandbox_messages").select("to_phone").execute();
    expect(sent.map((m) => m.to_phone)).toEqual(["+4915112345671"]);
  });

  it("fails a number ending 4007 as user_stopped_marketing and opts the contact out", async () => {
    const { stats, ids } = await run("+4915112344007", "+4915112345671");
    expect(stats).toMatchObject({ sent: 1, failed: 1 });
    expect(stats.failures).toEqual([{ reason: "user_stopped_marketing", count: 1 }]);
    const contact = (await t.request("GET", `${base}/contacts/${ids[0]}`)).json().data;
    expect(contact).toMatchObject({ opt_in_status: "opted_out", opt_in_source: "provider" });
    const events = await t.database.db
      .selectFrom("events")
      .select("data")
      .where("type", "=", "contact.opted_out")
      .execute();
    expect(events.map((e) => JSON.parse(e.data).id)).toEqual([ids[0]]);
  });
});
