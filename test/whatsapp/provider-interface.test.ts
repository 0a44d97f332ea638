import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChannelProvider, CreateChannelBody } from "../../src/contract/channels.js";
import type { MessagingProvider } from "../../src/service/messaging/provider.js";
import { messagingProviders } from "../../src/service/messaging/provider-routing.js";
import { sandboxMessagingProvider } from "../../src/service/sandbox/sandbox-provider.js";
import { type CloudWorld, cloudWorld } from "./world.js";

const sandbox = sandboxMessagingProvider({ reviewDelayMs: 0, sender: { send: async () => [] } });

describe("the sandbox as a messaging provider", () => {
  it("connects any valid E.164 number and answers it as the channel's number", async () => {
    expect(await sandbox.connectNumber("ws_1", { phone: "+4915112345678" })).toEqual({
      phone: "+4915112345678",
      verified_name: null,
      quality_rating: null,
      phone_number_id: null,
      waba_id: null,
      access_token_encrypted: null,
    });
  });

  it.each([
    ["not in E.164", "0151 12345678"],
    ["not a valid number", "+4900000"],
  ])("refuses a number %s, naming phone", async (_what, phone) => {
    await expect(sandbox.connectNumber("ws_1", { phone })).rejects.toMatchObject({
      code: "validation_failed",
      details: [{ field: "phone" }],
    });
  });

  it("is asked for by a request that carries no Cloud API credentials, each one named", () => {
    const parsed = CreateChannelBody.safeParse({ phone: "+4915112345678", access_token: "EAAG" });
    expect(parsed.error?.issues).toEqual([
      expect.objectContaining({
        path: ["access_token"],
        message: "is accepted only with provider whatsapp_cloud",
      }),
    ]);
  });

  it("is exactly-once and has no template status to catch up on", async () => {
    expect(sandbox.exactlyOnce).toBe(true);
    expect(await sandbox.templateStatuses({} as never)).toEqual([]);
  });
});

describe("choosing the operator per channel and per workspace", () => {
  let w: CloudWorld;
  beforeEach(async () => {
    w = await cloudWorld();
  });
  afterEach(() => w.close());

  const stub = (kind: ChannelProvider, exactlyOnce: boolean): MessagingProvider => ({
    kind,
    exactlyOnce,
    connectNumber: async () => {
      throw new Error("not used");
    },
    reviewTemplate: async () => ({ status: "approved" }),
    templateStatuses: async () => [],
    send: async (messages) =>
      messages.map((_, i) => ({ status: "accepted", providerMessageId: `${kind}-${i}` })),
  });
  const routed = () =>
    messagingProviders({
      db: w.t.database.db,
      sandbox: { ...stub("sandbox", true), reviewDelayMs: 5000 },
      cloud: stub("whatsapp_cloud", false),
    });

  it("reviews a workspace's templates in the sandbox until it connects a cloud number", async () => {
    const providers = routed();
    expect((await providers.forWorkspace(w.ws)).provider.kind).toBe("sandbox");
    const channel = await w.connect();
    const chosen = await providers.forWorkspace(w.ws);
    expect(chosen.provider.kind).toBe("whatsapp_cloud");
    expect(chosen.channel?.id).toBe(channel.id);
    expect(providers.reviewDelayMs).toBe(5000);
  });

  it("sends each batch through its channel's operator, repeating sends only where that is harmless", async () => {
    const providers = routed();
    const cloud = await w.connect();
    const sandboxChannel = await w.post("/channels", { phone: "+4915112349999", name: "Test" });
    const message = (channelId: string) => ({
      idempotencyKey: "k",
      recipientId: "c:k",
      channelId,
      to: "+4915112345671",
      templateName: "t",
      templateLanguage: "en",
      body: "Hi",
      parameters: { header: [], body: [] },
    });
    expect(await providers.sender.send([message(cloud.id)])).toEqual([
      { status: "accepted", providerMessageId: "whatsapp_cloud-0" },
    ]);
    expect(await providers.sender.send([message(sandboxChannel.id)])).toEqual([
      { status: "accepted", providerMessageId: "sandbox-0" },
    ]);
    expect(providers.sender.exactlyOnce?.("whatsapp_cloud")).toBe(false);
    expect(providers.sender.exactlyOnce?.("sandbox")).toBe(true);
  });
});
