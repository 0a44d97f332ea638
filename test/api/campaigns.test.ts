import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CampaignStats } from "../../src/contract/campaigns.js";
import { countConsentingWhere } from "../../src/service/domain/campaign-audience.js";
import { batchRunner } from "../helpers/batch-runner.js";
import { logLines } from "../helpers/log-lines.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const reviewDelayMs = 5000;

/** A workspace with a channel, an approved template and contacts of every consent state. */
async function campaignWorld(t: TestApp, options: { plan?: string } = {}) {
  const ws = await t.createWorkspace({ plan_id: options.plan ?? "2" });
  const base = `/api/v1/workspaces/${ws}`;
  const post = async (path: string, body: unknown, status = 201) => {
    const res = await t.request("POST", `${base}${path}`, { body });
    expect(res.statusCode, res.body).toBe(status);
    return res.json().data;
  };
  const channel = await post("/channels", { phone: "+4915112340000", name: "Main number" });
  const template = await post("/templates", {
    name: "spring_news",
    category: "marketing",
    language: "en_US",
    components: [
      {
        type: "BODY",
        text: "Hello {{1}}, our spring collection is here.",
        example: { body_text: [["Ada"]] },
      },
    ],
  });
  t.clock.advance(reviewDelayMs);
  await t.runJobs();
  const contact = (phone: string, extra: Record<string, unknown> = {}) =>
    t.request("POST", `${base}/contacts`, { body: { phone, ...extra } }).then((r) => r.json().data);
  const ada = await contact("+4915112345671", {
    first_name: "Ada",
    opt_in_status: "opted_in",
    tags: ["vip"],
  });
  const bob = await contact("+4915112345672", { first_name: "Bob", opt_in_status: "opted_in" });
  const cy = await contact("+4915112345673", { first_name: "Cy" });
  const dee = await contact("+4915112345674", {
    first_name: "Dee",
    opt_in_status: "opted_in",
    tags: ["vip"],
  });
  await t.request("PATCH", `${base}/contacts/${dee.id}`, { body: { opt_in_status: "opted_out" } });
  const body = (extra: Record<string, unknown> = {}) => ({
    name: "Spring launch",
    channel_id: channel.id,
    template_name: "spring_news",
    template_language: "en_US",
    audience: { all: true },
    variable_mapping: { "1": "first_name" },
    ...extra,
  });
  const stats = async (id: string) =>
    CampaignStats.parse((await t.request("GET", `${base}/campaigns/${id}/stats`)).json().data);
  return {
    ws,
    base,
    post,
    channel,
    template,
    contact,
    contacts: { ada, bob, cy, dee },
    body,
    stats,
  };
}

describe("campaigns", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  /** Messages the workspace sent this month by other means, which the month's quota counts. */
  const sentThisMonth = (workspaceId: string, sent: number) =>
    t.database.db
      .insertInto("message_counts")
      .values({ workspace_id: workspaceId, month: t.clock.now().toISOString().slice(0, 7), sent })
      .execute();

  it("connects a number once when it is added many times at once; the others are told it is taken", async () => {
    const ws = await t.createWorkspace();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.request("POST", `/api/v1/workspaces/${ws}/channels`, {
          body: { phone: "+4915112349999", name: "Main" },
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses, answers.map((a) => a.body).join("\n")).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
    ]);
    const refused = answers.find((a) => a.statusCode === 409)?.json();
    expect(refused.error_code).toBe("channel_exists");
    expect(refused.details[0]).toMatchObject({ field: "phone" });
    expect(refused.details[0].message).toMatch(/already connected as channel ch_/);
  });

  it("creates a draft without scheduled_at and a scheduled campaign with it", async () => {
    const w = await campaignWorld(t);
    const draft = await w.post("/campaigns", w.body());
    expect(draft).toMatchObject({ status: "draft", scheduled_at: null, audience: { all: true } });
    expect(draft.id).toMatch(/^cmp_/);
    const later = await w.post("/campaigns", w.body({ scheduled_at: "2026-11-23T08:00:00Z" }));
    expect(later).toMatchObject({ status: "scheduled", scheduled_at: "2026-11-23T08:00:00Z" });
    // null, as a client that always sends the field writes "not scheduled".
    const unscheduled = await w.post("/campaigns", w.body({ scheduled_at: null }));
    expect(unscheduled).toMatchObject({ status: "draft", scheduled_at: null });
  });

  it("takes scheduled_at with any ISO 8601 offset or none of the seconds, and answers it in UTC", async () => {
    const w = await campaignWorld(t);
    for (const [given, stored] of [
      ["2026-11-23T09:00+01:00", "2026-11-23T08:00:00Z"],
      ["2026-11-23T10:30:15.250+0200", "2026-11-23T08:30:15Z"],
      ["2026-11-23t08:45:00z", "2026-11-23T08:45:00Z"],
    ]) {
      const scheduled = await w.post("/campaigns", w.body({ scheduled_at: given }));
      expect(scheduled).toMatchObject({ status: "scheduled", scheduled_at: stored });
    }
  });

  it("messages only opted-in contacts and counts the others as skipped", async () => {
    const w = await campaignWorld(t);
    const draft = await w.post("/campaigns", w.body());
    const launched = await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    expect(launched.status).toBe("running");
    await t.runJobs();
    const campaign = (await t.request("GET", `${w.base}/campaigns/${draft.id}`)).json().data;
    expect(campaign.status).toBe("completed");
    expect(campaign.completed_at).not.toBeNull();
    const stats = await w.stats(draft.id);
    expect(stats).toMatchObject({
      audience_total: 4,
      skipped_no_consent: 1,
      skipped_opted_out: 1,
      queued: 0,
      sent: 2,
      failed: 0,
    });
    const sent = await t.database.db
      .selectFrom("sandbox_messages")
      .select(["to_phone", "body"])
      .orderBy("to_phone")
      .execute();
    expect(sent).toEqual([
      { to_phone: "+4915112345671", body: "Hello Ada, our spring collection is here." },
      { to_phone: "+4915112345672", body: "Hello Bob, our spring collection is here." },
    ]);
  });

  it("fills a variable from any custom field key a contact may hold (spaces, umlauts)", async () => {
    const w = await campaignWorld(t);
    await w.contact("+4915112345675", {
      first_name: "Eve",
      opt_in_status: "opted_in",
      tags: ["plans"],
      custom_fields: { "Plan Name": "Gold", Größe: "XL" },
    });
    const draft = await w.post(
      "/campaigns",
      w.body({
        audience: { tags: ["plans"] },
        variable_mapping: { "1": "custom.Plan Name" },
      }),
    );
    expect(draft.variable_mapping).toEqual({ "1": "custom.Plan Name" });
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    const sent = await t.database.db.selectFrom("sandbox_messages").select("body").execute();
    expect(sent).toEqual([{ body: "Hello Gold, our spring collection is here." }]);
    // A key no contact can hold is still refused, naming the mapping.
    const refused = await t.request("POST", `${w.base}/campaigns`, {
      body: w.body({ variable_mapping: { "1": "custom. padded" } }),
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().details[0]).toMatchObject({ field: "variable_mapping.1" });
  });

  it("fills a header's {{1}} from header.1 and the body's {{1}} from 1, as Meta numbers them apart", async () => {
    const w = await campaignWorld(t);
    await w.post("/templates", {
      name: "order_ready",
      category: "utility",
      language: "en_US",
      components: [
        { type: "HEADER", format: "TEXT", text: "Hi {{1}}!", example: { header_text: ["Ada"] } },
        {
          type: "BODY",
          text: "Your order {{1}} is ready.",
          example: { body_text: [["A-17"]] },
        },
      ],
    });
    t.clock.advance(reviewDelayMs);
    await t.runJobs();
    await w.contact("+4915112345675", {
      first_name: "Eve",
      opt_in_status: "opted_in",
      tags: ["orders"],
      custom_fields: { order: "B-42" },
    });
    const order = { template_name: "order_ready", audience: { tags: ["orders"] } };
    const headerOnly = await t.request("POST", `${w.base}/campaigns`, {
      body: w.body({ ...order, variable_mapping: { "header.1": "first_name" } }),
    });
    expect(headerOnly.json().details).toEqual([
      {
        field: "variable_mapping",
        message: "must map every variable of the template; missing {{1}}",
      },
    ]);
    const draft = await w.post(
      "/campaigns",
      w.body({ ...order, variable_mapping: { "1": "custom.order", "header.1": "first_name" } }),
    );
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    const sent = await t.database.db.selectFrom("sandbox_messages").select("body").execute();
    expect(sent).toEqual([{ body: "Hi Eve!\n\nYour order B-42 is ready." }]);
  });

  it("reports deliveries and reads as the sandbox makes them, as a cumulative funnel", async () => {
    const w = await campaignWorld(t);
    const draft = await w.post("/campaigns", w.body());
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    expect(await w.stats(draft.id)).toMatchObject({
      sent: 2,
      delivered: 0,
      read: 0,
      delivery_rate: 0,
    });
    t.clock.advance(1000);
    await t.runJobs();
    expect(await w.stats(draft.id)).toMatchObject({
      sent: 2,
      delivered: 2,
      read: 0,
      delivery_rate: 1,
      read_rate: 0,
    });
    t.clock.advance(2000);
    await t.runJobs();
    expect(await w.stats(draft.id)).toMatchObject({ sent: 2, delivered: 2, read: 2, read_rate: 1 });
  });

  it("groups the sandbox's magic-number failures by reason in the stats", async () => {
    const w = await campaignWorld(t);
    await w.contact("+4915112344001", { first_name: "Fay", opt_in_status: "opted_in" });
    await w.contact("+4915112344002", { first_name: "Gus", opt_in_status: "opted_in" });
    await w.contact("+4915112354001", { first_name: "Hal", opt_in_status: "opted_in" });
    await w.contact("+4915112344010", { first_name: "Ivy", opt_in_status: "opted_in" });
    const draft = await w.post("/campaigns", w.body());
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    t.clock.advance(10_000);
    await t.runJobs();
    t.clock.advance(10_000);
    await t.runJobs();
    const stats = await w.stats(draft.id);
    expect(stats).toMatchObject({ sent: 3, failed: 3, delivered: 3, read: 2 });
    expect(stats.failures).toEqual([
      { reason: "undeliverable", count: 2 },
      { reason: "spam_rate_limited", count: 1 },
    ]);
    expect(stats.sent + stats.failed).toBe(6);
  });

  it("fails a recipient whose mapped field is empty with missing_variable", async () => {
    const w = await campaignWorld(t);
    await w.contact("+4915112345679", { opt_in_status: "opted_in" });
    const draft = await w.post("/campaigns", w.body());
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    expect((await w.stats(draft.id)).failures).toEqual([{ reason: "missing_variable", count: 1 }]);
  });

  it("fails with missing_variable a recipient without the mapped custom field, even one named like toString", async () => {
    const w = await campaignWorld(t);
    for (const key of ["toString", "constructor"]) {
      const draft = await w.post(
        "/campaigns",
        w.body({ name: key, variable_mapping: { "1": `custom.${key}` } }),
      );
      await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
      await t.runJobs();
      const stats = await w.stats(draft.id);
      expect(stats.sent, key).toBe(0);
      expect(stats.failures, key).toEqual([{ reason: "missing_variable", count: stats.failed }]);
    }
  });

  it("sends to contacts with any of the audience's tags, or to the listed contacts only", async () => {
    const w = await campaignWorld(t);
    const byTag = await w.post("/campaigns", w.body({ audience: { tags: ["vip"] } }));
    await w.post(`/campaigns/${byTag.id}/launch`, undefined, 200);
    const byId = await w.post(
      "/campaigns",
      w.body({ audience: { contact_ids: [w.contacts.bob.id] } }),
    );
    await w.post(`/campaigns/${byId.id}/launch`, undefined, 200);
    await t.runJobs();
    expect(await w.stats(byTag.id)).toMatchObject({
      audience_total: 2,
      sent: 1,
      skipped_opted_out: 1,
    });
    expect(await w.stats(byId.id)).toMatchObject({ audience_total: 1, sent: 1 });
  });

  it("says in the launch's meta.notices when no contact of the audience has opted in", async () => {
    const w = await campaignWorld(t);
    const nobody = await w.post(
      "/campaigns",
      w.body({ audience: { contact_ids: [w.contacts.cy.id, w.contacts.dee.id] } }),
    );
    const launched = await t.request("POST", `${w.base}/campaigns/${nobody.id}/launch`);
    expect(launched.statusCode).toBe(200);
    expect(launched.json().meta).toEqual({
      notices: [
        {
          field: "audience",
          message:
            "none of its 2 contacts has opted in, so the campaign messages no one (only opted_in contacts are messaged).",
        },
      ],
    });
    const some = await w.post("/campaigns", w.body());
    const sending = await t.request("POST", `${w.base}/campaigns/${some.id}/launch`);
    expect(sending.json().meta).toEqual({});
  });

  it("matches an audience's tags whatever their case, as the contact list's tag filter does", async () => {
    const w = await campaignWorld(t);
    await w.contact("+4915112345680", {
      first_name: "Eve",
      opt_in_status: "opted_in",
      tags: ["VIP"],
    });
    const byTag = await w.post("/campaigns", w.body({ audience: { tags: ["Vip"] } }));
    await w.post(`/campaigns/${byTag.id}/launch`, undefined, 200);
    await t.runJobs();
    expect(await w.stats(byTag.id)).toMatchObject({
      audience_total: 3,
      sent: 2,
      skipped_opted_out: 1,
    });
    // Accented capitals too, alike on SQLite (whose NOCASE folds ASCII only) and PostgreSQL.
    await w.contact("+4915112345681", {
      first_name: "Zoé",
      opt_in_status: "opted_in",
      tags: ["Été"],
    });
    const accented = await w.post("/campaigns", w.body({ audience: { tags: ["ÉTÉ"] } }));
    await w.post(`/campaigns/${accented.id}/launch`, undefined, 200);
    await t.runJobs();
    expect(await w.stats(accented.id)).toMatchObject({ audience_total: 1, sent: 1 });
  });

  it("starts a scheduled campaign when its time comes, not before", async () => {
    const w = await campaignWorld(t);
    const at = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const scheduled = await w.post("/campaigns", w.body({ scheduled_at: at }));
    await t.runJobs();
    expect((await t.request("GET", `${w.base}/campaigns/${scheduled.id}`)).json().data.status).toBe(
      "scheduled",
    );
    t.clock.advance(3_600_000);
    await t.runJobs();
    const done = (await t.request("GET", `${w.base}/campaigns/${scheduled.id}`)).json().data;
    expect(done.status).toBe("completed");
    expect(done.started_at).toBe(`${at.slice(0, 19)}Z`);
  });

  it("honours a STOP that arrives after the campaign started but before its message went", async () => {
    const w = await campaignWorld(t);
    const draft = await w.post("/campaigns", w.body());
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    // One message per batch; while Ada's goes out, Bob replies STOP.
    const replyStop = () =>
      t.request("POST", "/api/v1/sandbox/inbound", {
        body: { workspace_id: w.ws, from: "+4915112345672", text: "stop" },
      });
    await batchRunner(t, async (messages) => {
      if (messages.some((m) => m.to === "+4915112345671")) await replyStop();
    }).runDue();
    expect(await w.stats(draft.id)).toMatchObject({ sent: 1, skipped_opted_out: 2, queued: 0 });
    const messages = await t.database.db
      .selectFrom("sandbox_messages")
      .select("to_phone")
      .execute();
    expect(messages).toEqual([{ to_phone: "+4915112345671" }]);
  });

  describe("refusals", () => {
    it("refuses to launch a campaign that is not a draft with 409 campaign_not_draft", async () => {
      const w = await campaignWorld(t);
      const draft = await w.post("/campaigns", w.body());
      await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
      const again = await t.request("POST", `${w.base}/campaigns/${draft.id}/launch`);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error_code: "campaign_not_draft" });
    });

    it("refuses to launch once the template was paused since the campaign was created", async () => {
      const w = await campaignWorld(t);
      const draft = await w.post("/campaigns", w.body());
      const pause = await t.request("POST", `/api/v1/sandbox/templates/${w.template.id}/review`, {
        body: { decision: "pause" },
      });
      expect(pause.statusCode, pause.body).toBe(200);
      const res = await t.request("POST", `${w.base}/campaigns/${draft.id}/launch`);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ error_code: "template_not_approved" });
      expect(res.json().message).toContain("paused");
    });

    it("refuses a template that is not approved in that language with 422 template_not_approved", async () => {
      const w = await campaignWorld(t);
      const res = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ template_language: "de" }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ error_code: "template_not_approved" });
    });

    it("refuses an audience with two options or none, naming the field", async () => {
      const w = await campaignWorld(t);
      for (const audience of [{ all: true, tags: ["vip"] }, {}, { all: false }, { tags: [] }]) {
        const res = await t.request("POST", `${w.base}/campaigns`, { body: w.body({ audience }) });
        expect(res.statusCode, JSON.stringify(audience)).toBe(422);
        expect(res.json().error_code).toBe("validation_failed");
        expect(res.json().details[0].field).toMatch(/^audience/);
      }
    });

    it("refuses a variable mapping that leaves a template variable out", async () => {
      const w = await campaignWorld(t);
      const res = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ variable_mapping: {} }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        {
          field: "variable_mapping",
          message: "must map every variable of the template; missing {{1}}",
        },
      ]);
    });

    it("refuses a variable mapping key the template does not have, listing the keys it has", async () => {
      const w = await campaignWorld(t);
      const res = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ variable_mapping: { "1": "first_name", "2": "last_name" } }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        { field: "variable_mapping", message: 'the template has no "2"; its keys: "1"' },
      ]);
      expect((await t.request("GET", `${w.base}/campaigns`)).json().data).toEqual([]);
    });

    it("refuses a scheduled_at in the past, an unknown channel and unknown contact ids", async () => {
      const w = await campaignWorld(t);
      const past = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ scheduled_at: "2026-01-01T00:00:00Z" }),
      });
      expect(past.json().details[0].field).toBe("scheduled_at");
      const channel = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ channel_id: "ch_nope" }),
      });
      expect(channel.json().details[0].field).toBe("channel_id");
      const ids = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ audience: { contact_ids: ["ct_nope"] } }),
      });
      expect(ids.json().details[0]).toMatchObject({ field: "audience.contact_ids" });
      expect((await t.request("GET", `${w.base}/campaigns`)).json().data).toEqual([]);
    });

    it("names every bad field of a campaign at once, not only the first", async () => {
      const w = await campaignWorld(t);
      const res = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({
          channel_id: "ch_nope",
          audience: { contact_ids: ["ct_nope"] },
          variable_mapping: {},
          scheduled_at: "2026-01-01T00:00:00Z",
        }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error_code).toBe("validation_failed");
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual([
        "channel_id",
        "audience.contact_ids",
        "scheduled_at",
        "variable_mapping",
      ]);
    });

    it("keeps template_not_approved for a template not approved, naming the other bad fields too", async () => {
      const w = await campaignWorld(t);
      const res = await t.request("POST", `${w.base}/campaigns`, {
        body: w.body({ template_language: "de", channel_id: "ch_nope" }),
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error_code).toBe("template_not_approved");
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual([
        "template_language",
        "channel_id",
      ]);
    });

    it("refuses a launch the month's message quota cannot carry with 409 plan_limit_exceeded", async () => {
      const w = await campaignWorld(t);
      await sentThisMonth(w.ws, 9999);
      const draft = await w.post("/campaigns", w.body());
      const res = await t.request("POST", `${w.base}/campaigns/${draft.id}/launch`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error_code: "plan_limit_exceeded" });
      expect(res.json().details[0]).toMatchObject({
        field: "messages_per_month",
        limit: 10000,
        used: 9999,
        requested: 2,
      });
      // What the launch needed, so the refusal reads as the arithmetic it is.
      expect(res.json().message).toContain("and 9999 are used; this needs 2;");
    });

    it("refuses a launch the quota could carry only if running campaigns sent nothing more, naming what they will still send", async () => {
      const w = await campaignWorld(t);
      await sentThisMonth(w.ws, 9996);
      // Each reaches two opted-in contacts: the first launch takes two of the four left, and the
      // second still fits; a third would be past the quota once the first two have sent.
      const campaigns = [];
      for (const name of ["First", "Second", "Third"]) {
        campaigns.push(await w.post("/campaigns", w.body({ name })));
      }
      const [first, second, third] = campaigns;
      await w.post(`/campaigns/${first.id}/launch`, undefined, 200);
      await w.post(`/campaigns/${second.id}/launch`, undefined, 200);
      const preview = await t.request("POST", `${w.base}/campaigns/preview`, { body: w.body() });
      expect(preview.json().data.messages_left_this_month).toBe(0);
      const refused = await t.request("POST", `${w.base}/campaigns/${third.id}/launch`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().details[0]).toMatchObject({
        field: "messages_per_month",
        limit: 10000,
        used: 9996,
        promised: 4,
        requested: 2,
      });
      expect(refused.json().message).toContain(
        "and 9996 are used, 4 more are still to be sent by running campaigns; this needs 2;",
      );
      // Once they have sent, the count of sent messages says the same by itself.
      await t.runJobs();
      const again = await t.request("POST", `${w.base}/campaigns/${third.id}/launch`);
      expect(again.json().details[0]).toMatchObject({ used: 10000, requested: 2 });
      expect(again.json().details[0].promised).toBeUndefined();
    });

    it("lets only one of two launches at once take the quota's last messages", async () => {
      const w = await campaignWorld(t);
      await sentThisMonth(w.ws, 9998);
      // Each reaches two opted-in contacts: either fits the two messages left, not both.
      const first = await w.post("/campaigns", w.body({ name: "First" }));
      const second = await w.post("/campaigns", w.body({ name: "Second" }));
      const answers = await Promise.all(
        [first, second].map((c) => t.request("POST", `${w.base}/campaigns/${c.id}/launch`)),
      );
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      const refused = answers.find((a) => a.statusCode === 409);
      expect(refused?.json().details[0]).toMatchObject({ used: 9998, promised: 2, requested: 2 });
    });

    it("lets only one of a resume and a launch at once take the quota's last messages", async () => {
      const w = await campaignWorld(t);
      await sentThisMonth(w.ws, 9998);
      const paused = await w.post("/campaigns", w.body({ name: "Paused" }));
      await w.post(`/campaigns/${paused.id}/launch`, undefined, 200);
      await w.post(`/campaigns/${paused.id}/pause`, undefined, 200);
      const draft = await w.post("/campaigns", w.body({ name: "Draft" }));
      const answers = await Promise.all([
        t.request("POST", `${w.base}/campaigns/${paused.id}/resume`),
        t.request("POST", `${w.base}/campaigns/${draft.id}/launch`),
      ]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    });

    it("holds the month's quota when two campaigns of a workspace send at once: each message past it fails quota_exceeded", async () => {
      const w = await campaignWorld(t);
      // Each reaches two opted-in contacts, and both launches fit an unused quota.
      const first = await w.post("/campaigns", w.body({ name: "First" }));
      const second = await w.post("/campaigns", w.body({ name: "Second" }));
      await w.post(`/campaigns/${first.id}/launch`, undefined, 200);
      await w.post(`/campaigns/${second.id}/launch`, undefined, 200);
      // Messages sent meanwhile by other means (another instance's campaign) leave room for two.
      await sentThisMonth(w.ws, 9998);
      // Two job loops, as two instances (or two lanes) run the two campaigns side by side.
      await Promise.all([t.runJobs(), t.runJobs()]);
      const stats = [await w.stats(first.id), await w.stats(second.id)];
      expect(stats.reduce((n, s) => n + s.sent, 0)).toBe(2);
      const refused = stats.flatMap((s) => s.failures).filter((f) => f.reason === "quota_exceeded");
      expect(refused.reduce((n, f) => n + f.count, 0)).toBe(2);
    });

    it("fails a running campaign whose workspace was suspended, with the reason", async () => {
      const w = await campaignWorld(t);
      const draft = await w.post("/campaigns", w.body());
      await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
      await t.request("PATCH", `/api/v1/workspaces/${w.ws}`, { body: { status: "suspended" } });
      await t.runJobs();
      const campaign = (await t.request("GET", `${w.base}/campaigns/${draft.id}`)).json().data;
      expect(campaign).toMatchObject({ status: "failed", failure_reason: "workspace_suspended" });
    });

    it("hides another reseller's campaigns behind 404", async () => {
      const w = await campaignWorld(t);
      const draft = await w.post("/campaigns", w.body());
      const other = await t.otherReseller();
      for (const path of [
        `/campaigns/${draft.id}`,
        `/campaigns/${draft.id}/stats`,
        "/campaigns",
        "/channels",
      ]) {
        const res = await t.request("GET", `${w.base}${path}`, { token: other });
        expect(res.statusCode, path).toBe(404);
      }
      const launch = await t.request("POST", `${w.base}/campaigns/${draft.id}/launch`, {
        token: other,
      });
      expect(launch.statusCode).toBe(404);
    });
  });

  it("previews the audience by consent and the template text without creating anything", async () => {
    const w = await campaignWorld(t);
    const preview = await w.post("/campaigns/preview", w.body(), 200);
    expect(preview).toEqual({
      audience_total: 4,
      with_consent: 2,
      skipped_no_consent: 1,
      skipped_opted_out: 1,
      missing_variable: 0,
      template: {
        name: "spring_news",
        language: "en_US",
        body: "Hello {{1}}, our spring collection is here.",
        footer: null,
        buttons: [],
      },
      messages_left_this_month: 10000,
    });
    expect((await t.request("GET", `${w.base}/campaigns`)).json().data).toEqual([]);
  });

  it("previews the message's footer and button labels, as a phone shows them", async () => {
    const w = await campaignWorld(t);
    await w.post("/templates", {
      name: "spring_sale",
      category: "marketing",
      language: "en_US",
      components: [
        { type: "BODY", text: "Hello {{1}}, 20% off.", example: { body_text: [["Ada"]] } },
        { type: "FOOTER", text: "Reply STOP to opt out" },
        {
          type: "BUTTONS",
          buttons: [
            { type: "QUICK_REPLY", text: "Interested" },
            { type: "URL", text: "Shop now", url: "https://shop.example/sale" },
          ],
        },
      ],
    });
    t.clock.advance(reviewDelayMs);
    await t.runJobs();
    const preview = await w.post(
      "/campaigns/preview",
      w.body({ template_name: "spring_sale" }),
      200,
    );
    expect(preview.template).toEqual({
      name: "spring_sale",
      language: "en_US",
      body: "Hello {{1}}, 20% off.",
      footer: "Reply STOP to opt out",
      buttons: ["Interested", "Shop now"],
    });
  });

  it("previews how many consenting contacts lack a mapped value, which the run fails as missing_variable", async () => {
    const w = await campaignWorld(t);
    await t.request("PATCH", `${w.base}/contacts/${w.contacts.bob.id}`, {
      body: { custom_fields: { city: "Berlin" } },
    });
    const mapped = w.body({ variable_mapping: { "1": "custom.city" } });
    const preview = await w.post("/campaigns/preview", mapped, 200);
    expect(preview).toMatchObject({ with_consent: 2, missing_variable: 1 });
    // Read page by page: the same count whatever the page size, across page ends.
    const noCity = (c: { custom_fields: Record<string, unknown> }) => !c.custom_fields.city;
    for (const pageSize of [1, 2, 3]) {
      expect(await countConsentingWhere(t.database.db, w.ws, { all: true }, noCity, pageSize)).toBe(
        1,
      );
    }
    const campaign = await w.post("/campaigns", mapped);
    await w.post(`/campaigns/${campaign.id}/launch`, undefined, 200);
    await t.runJobs();
    const stats = await w.stats(campaign.id);
    expect(stats).toMatchObject({ sent: 1, failed: 1 });
    expect(stats.failures).toEqual([{ reason: "missing_variable", count: 1 }]);
  });

  it("counts the month's sent messages in the workspace usage", async () => {
    const w = await campaignWorld(t);
    const draft = await w.post("/campaigns", w.body());
    await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
    await t.runJobs();
    const usage = (await t.request("GET", `/api/v1/workspaces/${w.ws}`)).json().data.usage;
    expect(usage.messages_sent_this_month).toBe(2);
    expect(usage.campaigns).toMatchObject({ total: 1, completed: 1 });
  });
});

describe("the service log", () => {
  it("records when a campaign's run starts and ends, and when it resumes after an instance died", async () => {
    const { logger, lines } = logLines();
    const t = await startTestApp({ logger });
    try {
      const w = await campaignWorld(t);
      const draft = await w.post("/campaigns", w.body());
      await w.post(`/campaigns/${draft.id}/launch`, undefined, 200);
      // A run another instance claimed and never ended: its lease ran out.
      await t.database.db
        .updateTable("jobs")
        .set({
          state: "running",
          attempts: 1,
          lease_owner: "ins_dead",
          lease_until: new Date(t.clock.now().getTime() - 1000).toISOString(),
        })
        .where("kind", "=", "campaign.run")
        .execute();
      await t.runJobs();
      const runs = lines.filter((line) => line.kind === "campaign.run");
      expect(runs.map((line) => line.msg)).toEqual([
        "job resumed from its checkpoint (an earlier run did not end: an instance died or the run failed)",
        "job done",
      ]);
      expect(runs[1]).toMatchObject({ state: "done", attempt: 2 });
      const next = await w.post("/campaigns", w.body({ name: "Second" }));
      await w.post(`/campaigns/${next.id}/launch`, undefined, 200);
      await t.runJobs();
      const second = lines.filter(
        (line) => line.kind === "campaign.run" && line.job !== runs[0]?.job,
      );
      expect(second.map((line) => line.msg)).toEqual(["job started", "job done"]);
      // Short work is left out: the sandbox's reports and template reviews ran too.
      expect(lines.some((line) => line.kind === "template_review")).toBe(false);
    } finally {
      await t.close();
    }
  });
});

describe("inbound replies", () => {
  let t: TestApp;
  let w: Awaited<ReturnType<typeof campaignWorld>>;
  beforeEach(async () => {
    t = await startTestApp();
    w = await campaignWorld(t);
  });
  afterEach(() => t.close());
  const send = (text: string) =>
    t.request("POST", "/api/v1/sandbox/inbound", {
      body: { workspace_id: w.ws, from: "+4915112345671", text },
    });

  it("opts a contact out on STOP or UNSUBSCRIBE, punctuation and emoji around it or not, and back in on START alone", async () => {
    expect((await send("  UNSUBSCRIBE ")).json().data.action).toBe("opted_out");
    const out = (await t.request("GET", `${w.base}/contacts/${w.contacts.ada.id}`)).json().data;
    expect(out).toMatchObject({
      opt_in_status: "opted_out",
      opted_out_at: "2026-11-22T09:30:05Z",
    });
    expect((await send("Start")).json().data.action).toBe("opted_in");
    expect((await send("thanks!")).json().data.action).toBe("none");
    expect((await send("Stop.")).json().data.action).toBe("opted_out");
    // A consent must be plain: a question is not a yes.
    expect((await send("Start?")).json().data.action).toBe("none");
    expect((await send(" START ")).json().data.action).toBe("opted_in");
    for (const text of [
      "*UNSUBSCRIBE*!!",
      "\u26d4\ufe0f stop",
      "STOP \u2764\ufe0f",
      "stop\u200b",
    ]) {
      expect((await send(text)).json().data.action, text).toBe("opted_out");
    }
    expect((await send("please stop")).json().data.action).toBe("none");
    expect((await send("start")).json().data.action).toBe("opted_in");
    const back = (await t.request("GET", `${w.base}/contacts/${w.contacts.ada.id}`)).json().data;
    expect(back).toMatchObject({ opt_in_status: "opted_in", opt_in_source: "whatsapp_reply" });
  });

  it("records a STOP in an archived workspace but not a START: it is read-only", async () => {
    expect((await t.request("POST", `${w.base}/archive`)).statusCode).toBe(200);
    expect((await send("STOP")).json().data.action).toBe("opted_out");
    expect((await send("START")).json().data).toMatchObject({
      action: "none",
      opt_in_status: "opted_out",
    });
  });
});
