import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { templateStatusWebhook } from "../helpers/fake-graph.js";
import { accessToken, type CloudWorld, cloudWorld, phoneNumberId, wabaId } from "./world.js";

describe("templates of a workspace with a WhatsApp Cloud API channel", () => {
  let w: CloudWorld;
  beforeEach(async () => {
    w = await cloudWorld();
    await w.connect();
  });
  afterEach(() => w.close());

  it("submits the template to the WABA in Graph's shapes and keeps it pending until Meta decides", async () => {
    const { template, graphId } = await w.submitTemplate();
    const submission = w.graph.requests.find(
      (r) => r.method === "POST" && r.path === `/${wabaId}/message_templates`,
    );
    expect(submission?.body).toMatchObject({
      name: "spring_news",
      language: "en_US",
      category: "MARKETING",
      components: [
        { type: "HEADER", format: "TEXT", text: "News for {{1}}!" },
        { type: "BODY", text: "Hello {{1}}, your code is {{2}}." },
      ],
    });
    expect(graphId).not.toBe("");
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
  });

  it("submits the template again after a bare HTTP 429 (a proxy in front of Meta), never rejecting it", async () => {
    w.graph.answerBare("message_templates", 429);
    const { template } = await w.submitTemplate();
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
    w.t.clock.advance(15 * 60_000);
    await w.t.runJobs();
    const submissions = w.graph.requests.filter(
      (r) => r.method === "POST" && r.path === `/${wabaId}/message_templates`,
    );
    expect(submissions).toHaveLength(2);
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
  });

  it("leaves a template to Meta while the workspace's number is disconnected, never to the sandbox", async () => {
    // As after Meta refused the channel's token (code 190): the number stays the workspace's.
    await w.t.database.db.updateTable("channels").set({ status: "disconnected" }).execute();
    const { template, graphId } = await w.submitTemplate();
    w.t.clock.advance(60_000);
    await w.t.runJobs();
    expect(graphId).not.toBe("");
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
  });

  it("submits a template Meta refused while the token was stale as soon as the number is added again", async () => {
    // Meta refused the channel's token (code 190): disconnected, and the old token no longer works.
    await w.t.database.db.updateTable("channels").set({ status: "disconnected" }).execute();
    const fresh = "EAAG-fresh-system-user-token-8d1e";
    w.newTokenAtMeta(fresh);
    const { template, graphId } = await w.submitTemplate();
    expect(graphId).toBe("");
    await w.post(
      "/channels",
      {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: fresh,
      },
      200,
    );
    await w.t.runJobs();
    expect(w.graph.submittedTemplates().map((g) => g.name)).toEqual([template.name]);
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
  });

  it("approves the template when Meta's status webhook says APPROVED", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED"));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("approved");
  });

  it("rejects the template with Meta's reason", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook(wabaId, graphId, "REJECTED", "INCORRECT_CATEGORY"));
    expect(await w.get(`/templates/${template.id}`)).toMatchObject({
      status: "rejected",
      rejection_reason: "INCORRECT_CATEGORY",
    });
  });

  it("approves a rejected template when Meta approves it after an edit or an appeal", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook(wabaId, graphId, "REJECTED", "INCORRECT_CATEGORY", 1));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 2));
    expect(await w.get(`/templates/${template.id}`)).toMatchObject({
      status: "approved",
      rejection_reason: null,
    });
  });

  it("follows Meta's word from any status: an approved template rejected on a second review, a rejected one disabled", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 1));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "REJECTED", "ABUSIVE_CONTENT", 2));
    expect(await w.get(`/templates/${template.id}`)).toMatchObject({
      status: "rejected",
      rejection_reason: "ABUSIVE_CONTENT",
    });
    await w.deliver(templateStatusWebhook(wabaId, graphId, "DISABLED", "NONE", 3));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("disabled");
  });

  it("keeps a disabled template disabled whatever a later report says", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 1));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "DISABLED", "NONE", 2));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 3));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("disabled");
  });

  it("follows an approved template to paused, back to approved, and to the new status disabled", async () => {
    const { template, graphId } = await w.submitTemplate();
    const status = async () => (await w.get(`/templates/${template.id}`)).status;
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 1));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "PAUSED", "NONE", 2));
    expect(await status()).toBe("paused");
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", 3));
    expect(await status()).toBe("approved");
    await w.deliver(templateStatusWebhook(wabaId, graphId, "DISABLED", "NONE", 4));
    expect(await status()).toBe("disabled");
    const listed = await w.t.request("GET", `${w.base}/templates?status=disabled`);
    expect(listed.json().data).toHaveLength(1);
  });

  it("drops a status webhook older than the status in hand, whatever order Meta delivers them in", async () => {
    const { template, graphId } = await w.submitTemplate();
    const start = Math.floor(w.t.clock.now().getTime() / 1000);
    const status = async () => (await w.get(`/templates/${template.id}`)).status;
    const changes = async () =>
      (await w.t.request("GET", "/api/v1/events?type=template.status_changed&limit=100")).json()
        .data.length;
    /** A webhook made `at` seconds after the start, delivered `after` seconds after it. */
    const deliverAt = async (decision: string, at: number, after = at) => {
      w.t.clock.advance(Math.max(0, (start + after) * 1000 - w.t.clock.now().getTime()));
      await w.deliver(templateStatusWebhook(wabaId, graphId, decision, "NONE", start + at));
    };
    await deliverAt("APPROVED", 0);
    await deliverAt("PAUSED", 10);
    expect(await status()).toBe("paused");
    expect(await changes()).toBe(2);
    await deliverAt("APPROVED", -100, 11);
    expect(await status()).toBe("paused");
    expect(await changes()).toBe(2);
    // A repeat of the status in hand is newer word too: an approval between them is stale.
    await deliverAt("PAUSED", 30);
    await deliverAt("APPROVED", 20, 31);
    expect(await status()).toBe("paused");
    await deliverAt("APPROVED", 40);
    expect(await status()).toBe("approved");
  });

  it("keeps Meta's order among webhooks stamped a little ahead of the service's clock", async () => {
    const { template, graphId } = await w.submitTemplate();
    const now = Math.floor(w.t.clock.now().getTime() / 1000);
    // Meta's clock 30 s ahead of ours; the older report arrives second.
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", now + 10));
    await w.deliver(templateStatusWebhook(wabaId, graphId, "PAUSED", "NONE", now + 30));
    w.t.clock.advance(1000);
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", now + 20));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("paused");
  });

  it("takes a webhook stamped far ahead of the service's clock as made a minute from now, so a later report still counts", async () => {
    const { template, graphId } = await w.submitTemplate();
    const now = Math.floor(w.t.clock.now().getTime() / 1000);
    // Meta's clock 20 minutes ahead of ours.
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED", "NONE", now + 1200));
    w.t.clock.advance(60_000);
    await w.deliver(templateStatusWebhook(wabaId, graphId, "PAUSED", "NONE", now + 60));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("paused");
  });

  it("catches a missed status webhook with the periodic template sync", async () => {
    const { template, graphId } = await w.submitTemplate();
    w.graph.setTemplateStatus(graphId, "APPROVED");
    w.t.clock.advance(15 * 60 * 1000);
    await w.t.runJobs();
    expect((await w.get(`/templates/${template.id}`)).status).toBe("approved");
    const syncs = w.graph.requests.filter(
      (r) => r.method === "GET" && r.path === `/${wabaId}/message_templates`,
    );
    expect(syncs.length).toBeGreaterThan(0);
  });

  it("disconnects the number when Meta refuses its token in the periodic sync, before any campaign meets it", async () => {
    const channel = (await w.get("/channels"))[0];
    // The token expired at Meta, with no campaign sending.
    w.newTokenAtMeta("EAAG-token-issued-later");
    w.t.clock.advance(15 * 60 * 1000);
    await w.t.runJobs();
    expect((await w.get(`/channels/${channel.id}`)).status).toBe("disconnected");
    const events = await w.t.request("GET", "/api/v1/events?type=channel.disconnected");
    expect(events.json().data.map((e: { data: { id: string } }) => e.data.id)).toEqual([
      channel.id,
    ]);
  });

  it("disconnects the number when Meta refuses its token for a template, which stays pending", async () => {
    const channel = (await w.get("/channels"))[0];
    w.newTokenAtMeta("EAAG-token-issued-later");
    const { template, graphId } = await w.submitTemplate();
    expect(graphId).toBe("");
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
    expect((await w.get(`/channels/${channel.id}`)).status).toBe("disconnected");
  });

  it("catches a missed pause with the periodic sync for every workspace whose number is on the same WABA", async () => {
    await w.submitTemplate();
    w.graph.addNumber("106540352242923", {
      token: accessToken,
      wabaId,
      display: "+49 1511 2340001",
      verifiedName: "Acme Two",
    });
    const other = `/api/v1/workspaces/${await w.t.createWorkspace({ plan_id: "2" })}`;
    const send = async (path: string, body: unknown) => {
      const res = await w.t.request("POST", `${other}${path}`, { body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data;
    };
    await send("/channels", {
      provider: "whatsapp_cloud",
      phone_number_id: "106540352242923",
      waba_id: wabaId,
      access_token: accessToken,
    });
    const template = await send("/templates", {
      name: "second_client_news",
      category: "utility",
      language: "en_US",
      components: [{ type: "BODY", text: "Your order has shipped." }],
    });
    w.t.clock.advance(5000);
    await w.t.runJobs();
    const graphId = w.graph.submittedTemplates().find((g) => g.name === template.name)?.id ?? "";
    await w.deliver(templateStatusWebhook(wabaId, graphId, "APPROVED"));
    // Meta pauses it and the webhook is lost: only the WABA's listing can tell.
    w.graph.setTemplateStatus(graphId, "PAUSED");
    w.t.clock.advance(15 * 60 * 1000);
    await w.t.runJobs();
    const res = await w.t.request("GET", `${other}/templates/${template.id}`);
    expect(res.json().data.status).toBe("paused");
  });

  it("ignores a template status webhook for a WABA it does not know", async () => {
    const { template, graphId } = await w.submitTemplate();
    await w.deliver(templateStatusWebhook("111111111", graphId, "APPROVED"));
    expect((await w.get(`/templates/${template.id}`)).status).toBe("pending");
  });
});

describe("the sandbox's operator controls and Meta's templates", () => {
  it("refuses to decide about a template Meta is reviewing", async () => {
    const w = await cloudWorld();
    try {
      await w.connect();
      const { template } = await w.submitTemplate();
      const res = await w.t.request("POST", `/api/v1/sandbox/templates/${template.id}/review`, {
        body: { decision: "approve" },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error_code: "template_not_reviewable" });
      expect(res.json().message).toContain("Meta");
    } finally {
      await w.close();
    }
  });
});
