import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CampaignStats } from "../../src/contract/campaigns.js";
import { batchRunner } from "../helpers/batch-runner.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** A workspace with a channel, an approved template and three opted-in contacts. */
async function world(t: TestApp) {
  const ws = await t.createWorkspace({ plan_id: "2" });
  const base = `/api/v1/workspaces/${ws}`;
  const post = async (path: string, body?: unknown, status = 201) => {
    const res = await t.request("POST", `${base}${path}`, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBe(status);
    return res.json().data;
  };
  const channel = await post("/channels", { phone: "+4915112340000", name: "Main number" });
  await post("/templates", {
    name: "spring_news",
    category: "marketing",
    language: "en_US",
    components: [{ type: "BODY", text: "Hello {{1}}, news.", example: { body_text: [["Ada"]] } }],
  });
  t.clock.advance(5000);
  await t.runJobs();
  for (const [i, name] of ["Ada", "Bob", "Cy"].entries()) {
    await post("/contacts", {
      phone: `+491511234567${i + 1}`,
      first_name: name,
      opt_in_status: "opted_in",
    });
  }
  const campaign = (extra: Record<string, unknown> = {}) =>
    post("/campaigns", {
      name: "Spring launch",
      channel_id: channel.id,
      template_name: "spring_news",
      template_language: "en_US",
      audience: { all: true },
      variable_mapping: { "1": "first_name" },
      ...extra,
    });
  const move = (id: string, action: string) =>
    t.request("POST", `${base}/campaigns/${id}/${action}`);
  const status = async (id: string) =>
    (await t.request("GET", `${base}/campaigns/${id}`)).json().data.status as string;
  const stats = async (id: string) =>
    CampaignStats.parse((await t.request("GET", `${base}/campaigns/${id}/stats`)).json().data);
  const sentPhones = async () =>
    (await t.database.db.selectFrom("sandbox_messages").select("to_phone").execute()).map(
      (m) => m.to_phone,
    );
  /** A campaign launched and paused while its first batch was sent: one sent, two queued. */
  const pausedAfterFirstBatch = async () => {
    const draft = await campaign();
    await post(`/campaigns/${draft.id}/launch`, undefined, 200);
    let batches = 0;
    const runner = batchRunner(t, async () => {
      batches += 1;
      if (batches === 1) expect((await move(draft.id, "pause")).statusCode).toBe(200);
    });
    await runner.runDue();
    return { draft, runner };
  };
  return { ws, base, post, campaign, move, status, stats, sentPhones, pausedAfterFirstBatch };
}

describe("campaign control", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("cancels a campaign whatever a pause sent at the same moment did, as cancel is allowed from both", async () => {
    const w = await world(t);
    for (let round = 0; round < 5; round++) {
      const draft = await w.campaign({ name: `Race ${round}` });
      await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
      const [paused, cancelled] = await Promise.all([
        w.move(draft.id, "pause"),
        w.move(draft.id, "cancel"),
      ]);
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      // The pause either came first or found the campaign cancelled (409, nothing to pause).
      expect([200, 409]).toContain(paused.statusCode);
      expect(await w.status(draft.id)).toBe("cancelled");
    }
  });

  it("pauses during sending: the batch in flight finishes, nothing more leaves until resume", async () => {
    const w = await world(t);
    const { draft, runner } = await w.pausedAfterFirstBatch();
    expect(await w.status(draft.id)).toBe("paused");
    expect(await w.sentPhones()).toHaveLength(1);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, queued: 2 });

    // The paused job looks again later, and still sends nothing.
    t.clock.advance(5 * 60_000);
    await runner.runDue();
    expect(await w.sentPhones()).toHaveLength(1);

    const resumed = await w.move(draft.id, "resume");
    expect(resumed.json().data.status).toBe("running");
    await runner.runDue();
    expect(await w.status(draft.id)).toBe("completed");
    const phones = await w.sentPhones();
    expect(phones).toHaveLength(3);
    expect(new Set(phones).size).toBe(3);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 3, queued: 0, cancelled: 0 });
    // The month's usage report bills them as marketing messages.
    const usage = (await t.request("GET", "/api/v1/usage")).json();
    expect(usage.data[0].messages.marketing).toEqual({ sent: 3, delivered: 0, read: 0, failed: 0 });
    expect(usage.meta.totals.messages.total.sent).toBe(3);
  });

  it("refuses a resume the month's quota cannot carry (409 plan_limit_exceeded), leaving the campaign paused", async () => {
    const w = await world(t);
    const { draft } = await w.pausedAfterFirstBatch();
    // Meanwhile other sending used the month's quota up to one message: two are still queued.
    await t.database.db
      .updateTable("message_counts")
      .set({ sent: 9999 })
      .where("workspace_id", "=", w.ws)
      .execute();
    const refused = await w.move(draft.id, "resume");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error_code: "plan_limit_exceeded" });
    expect(refused.json().details[0]).toMatchObject({
      field: "messages_per_month",
      used: 9999,
      requested: 2,
    });
    expect(await w.status(draft.id)).toBe("paused");
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, queued: 2, failed: 0 });
  });

  it("checks the quota on resume also for a campaign paused before its run took the audience", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    expect((await w.move(draft.id, "pause")).statusCode).toBe(200);
    await t.database.db
      .insertInto("message_counts")
      .values({ workspace_id: w.ws, month: t.clock.now().toISOString().slice(0, 7), sent: 9999 })
      .execute();
    const refused = await w.move(draft.id, "resume");
    expect(refused.statusCode).toBe(409);
    expect(refused.json().details[0]).toMatchObject({ field: "messages_per_month", requested: 3 });
    expect(await w.status(draft.id)).toBe("paused");
  });

  it("bills each message in the month it was sent: a campaign resumed next month splits", async () => {
    const w = await world(t);
    const { draft, runner } = await w.pausedAfterFirstBatch();
    t.clock.advance(10 * 86_400_000); // 22 November → 2 December
    expect((await w.move(draft.id, "resume")).statusCode).toBe(200);
    await runner.runDue();
    expect(await w.status(draft.id)).toBe("completed");
    const sentIn = async (month: string) =>
      (await t.request("GET", `/api/v1/usage?month=${month}`)).json().meta.totals.messages.total
        .sent as number;
    expect([await sentIn("2026-11"), await sentIn("2026-12")]).toEqual([1, 2]);
    // The same split as the quota's meter, which counts the current month.
    const ws = (await t.request("GET", `/api/v1/workspaces/${w.ws}`)).json().data;
    expect(ws.usage.messages_sent_this_month).toBe(2);
  });

  it("cancels during sending: the rest count as cancelled and are never sent", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    const runner = batchRunner(t, async (messages) => {
      if (messages[0]?.to === "+4915112345671") {
        expect((await w.move(draft.id, "cancel")).statusCode).toBe(200);
      }
    });
    await runner.runDue();
    expect(await w.status(draft.id)).toBe("cancelled");
    expect(await w.sentPhones()).toEqual(["+4915112345671"]);
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, queued: 0, cancelled: 2 });
    const recipients = await t.database.db
      .selectFrom("campaign_recipients")
      .select("state")
      .orderBy("contact_id")
      .execute();
    expect(recipients.map((r) => r.state).sort()).toEqual(["cancelled", "cancelled", "sent"]);
  });

  it("counts the unsent recipients as cancelled as soon as the cancel answers, mid-batch", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    let during: CampaignStats | undefined;
    const runner = batchRunner(t, async (messages) => {
      if (messages[0]?.to === "+4915112345671") {
        expect((await w.move(draft.id, "cancel")).statusCode).toBe(200);
        during = await w.stats(draft.id);
      }
    });
    await runner.runDue();
    // The batch in flight was not yet recorded: all three are waiting, so all count as cancelled.
    expect(during).toMatchObject({ queued: 0, sent: 0, cancelled: 3 });
    expect(await w.stats(draft.id)).toMatchObject({ queued: 0, sent: 1, cancelled: 2 });
  });

  it("cancels a paused campaign at once, counting its unsent recipients", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    const runner = batchRunner(t, async () => {
      if ((await w.status(draft.id)) === "running") await w.move(draft.id, "pause");
    });
    await runner.runDue();
    const cancelled = await w.move(draft.id, "cancel");
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().data.status).toBe("cancelled");
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, queued: 0, cancelled: 2 });
    t.clock.advance(5 * 60_000);
    await runner.runDue();
    expect(await w.sentPhones()).toHaveLength(1);
  });

  it("pauses a scheduled campaign and resumes it to scheduled while its time is ahead", async () => {
    const w = await world(t);
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const scheduled = await w.campaign({ scheduled_at: at });
    expect((await w.move(scheduled.id, "pause")).json().data.status).toBe("paused");
    expect((await w.move(scheduled.id, "resume")).json().data.status).toBe("scheduled");
    await t.runJobs();
    expect(await w.sentPhones()).toHaveLength(0);

    expect((await w.move(scheduled.id, "pause")).statusCode).toBe(200);
    t.clock.advance(2 * 3_600_000);
    await t.runJobs();
    expect(await w.sentPhones()).toHaveLength(0);
    // Its time has passed: resume starts it, now, as a launch does, and says so once.
    const resumed = (await w.move(scheduled.id, "resume")).json().data;
    expect(resumed).toMatchObject({
      status: "running",
      started_at: t.clock
        .now()
        .toISOString()
        .replace(/\.\d+Z$/, "Z"),
    });
    await t.runJobs();
    expect(await w.status(scheduled.id)).toBe("completed");
    expect(await w.sentPhones()).toHaveLength(3);
    const started = await t.request(
      "GET",
      `/api/v1/events?workspace_id=${w.ws}&type=campaign.started`,
    );
    expect(started.json().data).toHaveLength(1);
  });

  it("cancels a draft or scheduled campaign, counting its consenting audience as cancelled", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    expect((await w.move(draft.id, "cancel")).json().data.status).toBe("cancelled");
    expect(await w.stats(draft.id)).toMatchObject({ cancelled: 3, sent: 0 });
    const scheduled = await w.campaign({
      scheduled_at: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    expect((await w.move(scheduled.id, "cancel")).json().data.status).toBe("cancelled");
    t.clock.advance(120_000);
    await t.runJobs();
    expect(await w.status(scheduled.id)).toBe("cancelled");
    expect(await w.sentPhones()).toHaveLength(0);
  });

  it("cancels a campaign launched a moment ago, before it took its audience: the audience counts as cancelled", async () => {
    const w = await world(t);
    const launched = await w.campaign();
    await w.post(`/campaigns/${launched.id}/launch`, undefined, 200);
    // No job has run: the run job has not counted the audience yet.
    expect((await w.move(launched.id, "cancel")).statusCode).toBe(200);
    await t.runJobs();
    const stats = (await t.request("GET", `${w.base}/campaigns/${launched.id}/stats`)).json().data;
    expect(stats.audience_total).toBeGreaterThan(0);
    expect(stats).toMatchObject({ sent: 0, queued: 0 });
    expect(stats.cancelled).toBe(
      stats.audience_total - stats.skipped_no_consent - stats.skipped_opted_out,
    );
    const types = (await t.request("GET", `/api/v1/events?workspace_id=${w.ws}&per_page=100`))
      .json()
      .data.map((e: { type: string }) => e.type)
      .filter((type: string) => type.startsWith("campaign."));
    expect(types.reverse()).toEqual(["campaign.started", "campaign.cancelled"]);
  });

  it("refuses every other move with 409 campaign_state_conflict", async () => {
    const w = await world(t);
    const draft = await w.campaign();
    for (const action of ["pause", "resume"]) {
      const res = await w.move(draft.id, action);
      expect(res.statusCode, action).toBe(409);
      expect(res.json()).toMatchObject({ error_code: "campaign_state_conflict" });
    }
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    expect((await w.move(draft.id, "resume")).statusCode).toBe(409);
    await t.runJobs();
    expect(await w.status(draft.id)).toBe("completed");
    for (const action of ["pause", "resume", "cancel"]) {
      expect((await w.move(draft.id, action)).statusCode, action).toBe(409);
    }
    const cancelled = await w.campaign();
    await w.move(cancelled.id, "cancel");
    for (const action of ["pause", "resume", "cancel"]) {
      expect((await w.move(cancelled.id, action)).statusCode, action).toBe(409);
    }
    expect((await w.move("cmp_missing", "pause")).statusCode).toBe(404);
  });

  it("lists campaigns by the new statuses and records campaign events", async () => {
    const w = await world(t);
    const one = await w.campaign();
    await w.post(`/campaigns/${one.id}/launch`, undefined, 200);
    await w.move(one.id, "pause");
    const two = await w.campaign();
    await w.move(two.id, "cancel");
    const paused = (await t.request("GET", `${w.base}/campaigns?status=paused`)).json().data;
    expect(paused.map((c: { id: string }) => c.id)).toEqual([one.id]);
    const cancelled = (await t.request("GET", `${w.base}/campaigns?status=cancelled`)).json().data;
    expect(cancelled.map((c: { id: string }) => c.id)).toEqual([two.id]);
    await w.move(one.id, "resume");
    await t.runJobs();
    const types = (await t.request("GET", `/api/v1/events?workspace_id=${w.ws}&per_page=100`))
      .json()
      .data.map((e: { type: string }) => e.type)
      .filter((type: string) => type.startsWith("campaign."));
    // Started at its launch, so the pause that came before the run job follows it; the resume
    // starts it again.
    expect(types.reverse()).toEqual([
      "campaign.started",
      "campaign.paused",
      "campaign.cancelled",
      "campaign.started",
      "campaign.completed",
    ]);
  });

  it("tells a resume back to its schedule by the campaign.started of its time, once", async () => {
    const w = await world(t);
    const at = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const scheduled = await w.campaign({ scheduled_at: at });
    await w.move(scheduled.id, "pause");
    expect((await w.move(scheduled.id, "resume")).json().data.status).toBe("scheduled");
    const events = async () =>
      (await t.request("GET", `/api/v1/events?workspace_id=${w.ws}&type=campaign.started`)).json()
        .data as Array<{ data: { status: string } }>;
    expect(await events()).toEqual([]);
    t.clock.advance(61_000);
    await t.runJobs();
    expect(await w.status(scheduled.id)).toBe("completed");
    expect(await events()).toHaveLength(1);
  });
});
