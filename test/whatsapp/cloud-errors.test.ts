import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { secretBoxFromKey } from "../../src/service/domain/secret-box.js";
import { statusWebhook } from "../helpers/fake-graph.js";
import { logLines } from "../helpers/log-lines.js";
import { startTestApp } from "../helpers/test-app.js";
import {
  accessToken,
  type CloudWorld,
  cloudWorld,
  phoneNumberId,
  secretKey,
  wabaId,
} from "./world.js";

const ada = "+4915112345671";
const bob = "+4915112345672";

describe("Graph errors as campaign outcomes", () => {
  let w: CloudWorld;
  let channelId: string;
  beforeEach(async () => {
    w = await cloudWorld();
    channelId = (await w.connect()).id;
    await w.approvedTemplate();
    await w.contact(ada, { first_name: "Ada", custom_fields: { code: "A-1" } });
  });
  afterEach(() => w.close());

  const campaignOf = async (id: string) =>
    (await w.get(`/campaigns/${id}`)) as { status: string; failure_reason: string | null };

  it.each([
    [131026, "undeliverable"],
    [131049, "marketing_limit"],
    [131050, "user_stopped_marketing"],
    [132000, "template_parameter_mismatch"],
    [131047, "provider_error_131047"],
  ])("fails the message on code %i as %s and sends the rest", async (code, reason) => {
    await w.contact(bob, { first_name: "Bob", custom_fields: { code: "B-2" } });
    w.graph.failSends("4915112345671", code);
    const campaign = await w.campaign(channelId);
    const stats = await w.stats(campaign.id);
    expect(stats).toMatchObject({ sent: 1, failed: 1, queued: 0 });
    expect(stats.failures).toEqual([{ reason, count: 1 }]);
    expect((await campaignOf(campaign.id)).status).toBe("completed");
  });

  it("opts the contact out with source provider when Meta says the person stopped marketing (131050)", async () => {
    w.graph.failSends("4915112345671", 131050);
    await w.campaign(channelId);
    const [contact] = (
      await w.t.request("GET", `${w.base}/contacts?phone=${encodeURIComponent(ada)}`)
    ).json().data;
    expect(contact).toMatchObject({ opt_in_status: "opted_out", opt_in_source: "provider" });
  });

  it.each([130429, 131056, 80007, 4])(
    "waits and sends again after the rate limit code %i, the recipient staying queued meanwhile",
    async (code) => {
      w.graph.failSends("4915112345671", code);
      const campaign = await w.campaign(channelId);
      expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, failed: 0, queued: 0 });
      expect(w.graph.sends()).toHaveLength(2);
    },
  );

  it("waits and sends again after a bare HTTP 429 without a Graph error (a proxy in front of Meta)", async () => {
    w.graph.answerBare("4915112345671", 429);
    const campaign = await w.campaign(channelId);
    expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, failed: 0, queued: 0 });
    expect(w.graph.sends()).toHaveLength(2);
  });

  it.each([
    [132001, "template_unavailable", "approved"],
    [132015, "template_paused", "paused"],
    [132016, "template_paused", "disabled"],
  ])("fails the campaign on code %i as %s", async (code, reason, templateStatus) => {
    await w.contact(bob, { first_name: "Bob", custom_fields: { code: "B-2" } });
    w.graph.failSends("4915112345671", code);
    const campaign = await w.campaign(channelId);
    expect(await campaignOf(campaign.id)).toMatchObject({
      status: "failed",
      failure_reason: reason,
    });
    // A run's first send goes alone (then every lane opens): Ada's refusal stops Bob's.
    expect(w.graph.sends()).toHaveLength(1);
    const [template] = (await w.t.request("GET", `${w.base}/templates`)).json().data;
    expect(template.status).toBe(templateStatus);
    // Every recipient ends with an outcome: the one never sent fails with the campaign's reason.
    const stats = await w.stats(campaign.id);
    expect(stats).toMatchObject({ queued: 0 });
    expect(stats.sent + stats.failed).toBe(2);
    expect(stats.failures).toContainEqual({ reason, count: expect.any(Number) });
  });

  it("disconnects the channel and fails the campaign as channel_disconnected on code 190", async () => {
    w.graph.failSends("4915112345671", 190);
    const campaign = await w.campaign(channelId);
    expect(await campaignOf(campaign.id)).toMatchObject({
      status: "failed",
      failure_reason: "channel_disconnected",
    });
    expect((await w.get(`/channels/${channelId}`)).status).toBe("disconnected");
  });

  it("connects a disconnected channel again, same id, when its number is added again with a fresh token", async () => {
    w.graph.failSends("4915112345671", 190);
    await w.campaign(channelId);
    expect((await w.get(`/channels/${channelId}`)).status).toBe("disconnected");
    const again = await w.post(
      "/channels",
      {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: (await w.get(`/channels/${channelId}`)).waba_id,
        access_token: accessToken,
      },
      200,
    );
    expect(again).toMatchObject({ id: channelId, status: "connected" });
    const campaign = await w.campaign(channelId);
    expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, failed: 0 });
    // A connected number is still refused: it is not connected twice.
    await w.post(
      "/channels",
      {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: again.waba_id,
        access_token: accessToken,
      },
      409,
    );
  });

  describe("after RESELLER_SECRET_KEY was lost or changed", () => {
    /** The stored token as a service with another key sealed it: this key cannot open it. */
    const sealUnderAnotherKey = async () => {
      const other = secretBoxFromKey(Buffer.alloc(32, 9).toString("base64"));
      await w.t.database.db
        .updateTable("channels")
        .set({ access_token_encrypted: other.seal(accessToken) })
        .where("id", "=", channelId)
        .execute();
    };
    const addAgain = (status: number) =>
      w.post(
        "/channels",
        {
          provider: "whatsapp_cloud",
          phone_number_id: phoneNumberId,
          waba_id: wabaId,
          access_token: accessToken,
        },
        status,
      );
    const eventTypes = async () =>
      (
        (await w.t.request("GET", "/api/v1/events?limit=100")).json().data as { type: string }[]
      ).map((e) => e.type);

    it("fails the campaign as channel_credentials_unavailable, leaving the channel connected for the right key", async () => {
      await sealUnderAnotherKey();
      const campaign = await w.campaign(channelId);
      expect(await campaignOf(campaign.id)).toMatchObject({
        status: "failed",
        failure_reason: "channel_credentials_unavailable",
      });
      // An instance with the wrong key must not disconnect every channel it meets.
      expect((await w.get(`/channels/${channelId}`)).status).toBe("connected");
      expect(await eventTypes()).not.toContain("channel.disconnected");
      expect(w.graph.sends()).toHaveLength(0);
    });

    it("connects the channel again, same id, when its number is added again in its workspace", async () => {
      await sealUnderAnotherKey();
      const again = await addAgain(200);
      expect(again).toMatchObject({ id: channelId, status: "connected" });
      const types = await eventTypes();
      expect(types).toContain("channel.disconnected");
      const campaign = await w.campaign(channelId);
      expect(await w.stats(campaign.id)).toMatchObject({ sent: 1, failed: 0 });
      // Its token opens again: the number is refused as any connected one is.
      await addAgain(409);
    });

    it("warns once as the service starts with a key that cannot open a channel's token", async () => {
      const { logger, lines } = logLines();
      const restart = async (secretKey: string) => {
        const again = await startTestApp({
          database: { ...w.t.database, close: async () => {} },
          whatsapp: { secretKey },
          logger,
        });
        await again.close();
      };
      await restart(secretKey);
      await restart(Buffer.alloc(32, 9).toString("base64"));
      expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
        "1 WhatsApp Cloud channel has an access token that this RESELLER_SECRET_KEY cannot open (sealed under another key): set the key the tokens were sealed with, or add the numbers again with fresh tokens (docs/whatsapp-cloud.md)",
      ]);
    });

    it("leaves the channel connected when the template sync cannot open its token", async () => {
      await sealUnderAnotherKey();
      w.t.clock.advance(16 * 60_000);
      await w.t.runJobs();
      expect((await w.get(`/channels/${channelId}`)).status).toBe("connected");
    });
  });

  it.each([
    [131026, "undeliverable"],
    [132015, "template_paused"],
    [190, "channel_disconnected"],
    [131047, "provider_error_131047"],
    // A rate limit the table retries cannot be retried once Meta failed the message.
    [131056, "provider_error_131056"],
  ])(
    "fails a sent message by the code of its failed status webhook (%i: %s), so it no longer counts as sent",
    async (errorCode, reason) => {
      const campaign = await w.campaign(channelId);
      const [row] = await w.t.database.db
        .selectFrom("campaign_recipients")
        .select("provider_message_id")
        .where("campaign_id", "=", campaign.id)
        .execute();
      await w.deliver(
        statusWebhook(phoneNumberId, [
          {
            id: row?.provider_message_id ?? "",
            status: "failed",
            to: "4915112345671",
            errorCode,
          },
        ]),
      );
      const stats = await w.stats(campaign.id);
      // The contract's funnel: at the end sent + failed equals the recipients with consent.
      expect(stats).toMatchObject({ sent: 0, failed: 1, queued: 0 });
      expect(stats.failures).toEqual([{ reason, count: 1 }]);
    },
  );
});
