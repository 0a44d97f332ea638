import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { disconnectChannel } from "../../src/service/domain/channels.js";
import { graphError } from "../helpers/fake-graph.js";
import {
  accessToken,
  type CloudWorld,
  cloudWorld,
  phoneNumberId,
  verifyToken,
  wabaId,
} from "./world.js";

describe("WhatsApp Cloud API channels", () => {
  /** What Meta gives to connect a number: its id, its account's id and a token. */
  const threeIds = {
    provider: "whatsapp_cloud",
    phone_number_id: phoneNumberId,
    waba_id: wabaId,
    access_token: accessToken,
  };
  let w: CloudWorld;
  beforeEach(async () => {
    w = await cloudWorld();
  });
  afterEach(() => w.close());

  it("connects a number after Meta confirmed it, keeping its display number, verified name and quality", async () => {
    const channel = await w.connect();
    expect(channel).toMatchObject({
      provider: "whatsapp_cloud",
      phone: "+4915112340000",
      phone_number_id: phoneNumberId,
      waba_id: wabaId,
      verified_name: "Acme Shop",
      quality_rating: "GREEN",
      status: "connected",
    });
    const check = w.graph.requests.find(
      (r) => r.method === "GET" && r.path === `/${phoneNumberId}`,
    );
    expect(check?.authorization).toBe(`Bearer ${accessToken}`);
    expect(check?.query.fields).toContain("verified_name");
    expect(await w.get(`/channels/${channel.id}`)).toEqual(channel);
  });

  it("connects a number with only the three ids Meta gives, named by its verified name", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: threeIds,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ name: "Acme Shop", verified_name: "Acme Shop" });
  });

  it("connects one of Meta's test numbers (+1 555 …), which Meta's API Setup page hands out for a trial", async () => {
    w.graph.addNumber("555000111", {
      token: accessToken,
      wabaId,
      display: "+1 555-010-0001",
      verifiedName: "Test Number",
    });
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        phone_number_id: "555000111",
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ phone: "+15550100001", status: "connected" });
  });

  it("stores the access token encrypted and never shows or logs it", async () => {
    const channel = await w.connect();
    const row = await w.t.database.db
      .selectFrom("channels")
      .select("access_token_encrypted")
      .where("id", "=", channel.id)
      .executeTakeFirstOrThrow();
    expect(row.access_token_encrypted).toMatch(/^v1\./);
    expect(row.access_token_encrypted).not.toContain(accessToken);
    const list = await w.t.request("GET", `${w.base}/channels`);
    const one = await w.t.request("GET", `${w.base}/channels/${channel.id}`);
    for (const body of [list.body, one.body, JSON.stringify(channel)]) {
      expect(body).not.toContain(accessToken);
    }
    expect(w.logs.length).toBeGreaterThan(0);
    expect(w.logs.join("")).not.toContain(accessToken);
  });

  it("keeps a number connected again with a fresh token when Meta's refusal of the old one comes late", async () => {
    const channel = await w.connect();
    const sealedToken = async () =>
      (
        await w.t.database.db
          .selectFrom("channels")
          .select("access_token_encrypted")
          .where("id", "=", channel.id)
          .executeTakeFirstOrThrow()
      ).access_token_encrypted;
    const old = await sealedToken();
    // Refused (a send met code 190), then added again with a fresh token.
    expect(await disconnectChannel(w.t.database.db, w.t.clock, channel.id, old)).toBe(true);
    const fresh = "EAAG-fresh-system-user-token-5b9e";
    w.newTokenAtMeta(fresh);
    const body = { provider: "whatsapp_cloud", phone_number_id: phoneNumberId, waba_id: wabaId };
    await w.post("/channels", { ...body, access_token: fresh }, 200);
    // A sync round or a review that began with the old token hears 190 only now.
    expect(await disconnectChannel(w.t.database.db, w.t.clock, channel.id, old)).toBe(false);
    expect((await w.get(`/channels/${channel.id}`)).status).toBe("connected");
    expect(
      await disconnectChannel(w.t.database.db, w.t.clock, channel.id, await sealedToken()),
    ).toBe(true);
  });

  it("refuses a token Meta rejects with a 422 naming access_token", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        name: "Shop",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: "EAAG-expired",
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0].field).toBe("access_token");
    expect(res.body).not.toContain("EAAG-expired");
    expect(w.logs.join("")).not.toContain("EAAG-expired");
  });

  it("refuses a phone number id Meta does not know with a 422 naming phone_number_id", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        name: "Shop",
        phone_number_id: "999999999",
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details[0].field).toBe("phone_number_id");
  });

  it.each([
    ["an outage's HTML 502", { status: 502, body: "<html><body>Bad Gateway</body></html>" }],
    [
      "the application rate limit (code 4)",
      { status: 400, body: graphError(4, "Application request limit reached") },
    ],
    [
      "a transient error (code 1)",
      { status: 500, body: graphError(1, "An unknown error occurred") },
    ],
    [
      "a temporary outage (code 2)",
      { status: 503, body: graphError(2, "Service temporarily unavailable") },
    ],
    [
      "an HTTP 429 whatever its code (a business use case limit)",
      { status: 429, body: graphError(80008, "Rate limit hit for this WABA") },
    ],
  ])(
    "answers 503 service_unavailable, storing nothing, when checking the number meets %s",
    async (_name, failure) => {
      const body = {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: accessToken,
      };
      for (const path of [`/${phoneNumberId}`, `/${wabaId}/phone_numbers`]) {
        w.graph.answerPath(path, failure);
        const res = await w.t.request("POST", `${w.base}/channels`, { body });
        expect(res.statusCode, `${path}: ${res.body}`).toBe(503);
        expect(res.json()).toMatchObject({ error_code: "service_unavailable" });
        expect(res.json().message).toContain("the number could not be checked, try again");
      }
      expect(await w.get("/channels")).toEqual([]);
    },
  );

  it("answers 503 without naming the Graph address (the operator's --graph-url) when Meta cannot be reached", async () => {
    await w.graph.stop();
    const res = await w.t.request("POST", `${w.base}/channels`, { body: threeIds });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().message).toMatch(/^Graph API did not answer \(ECONNREFUSED\)/);
    expect(res.body).not.toMatch(/127\.0\.0\.1|http:/);
  });

  it("finds the number on a later page of a WABA with more numbers than one page holds", async () => {
    const number = { token: accessToken, wabaId, display: "+4915112340100", verifiedName: "Shop" };
    for (let i = 0; i < 120; i++) w.graph.addNumber(String(700000000 + i), number);
    w.graph.addNumber("555999000", { ...number, display: "+4915112340999" });
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        phone_number_id: "555999000",
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const pages = w.graph.requests.filter((r) => r.path === `/${wabaId}/phone_numbers`);
    expect(pages.map((r) => r.query.after)).toEqual([undefined, "100"]);
  });

  it("refuses a waba_id that is not the number's account with a 422 naming waba_id, storing nothing", async () => {
    w.graph.addNumber("777000111", {
      token: accessToken,
      wabaId: "9002",
      display: "+4915112340099",
      verifiedName: "Other Shop",
    });
    for (const [waba, words] of [
      ["9002", "is not a number of WhatsApp Business Account 9002"],
      ["424242", "Meta does not know this WhatsApp Business Account id"],
    ]) {
      const res = await w.t.request("POST", `${w.base}/channels`, {
        body: {
          provider: "whatsapp_cloud",
          phone_number_id: phoneNumberId,
          waba_id: waba,
          access_token: accessToken,
        },
      });
      expect(res.statusCode, waba).toBe(422);
      expect(res.json().details[0]).toMatchObject({ field: "waba_id" });
      expect(res.json().details[0].message).toContain(words);
    }
    expect((await w.t.request("GET", `${w.base}/channels`)).json().data).toEqual([]);
  });

  it("asks for the missing Graph ids of a cloud channel", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        name: "Shop",
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "phone_number_id", message: "is required with provider whatsapp_cloud" },
    ]);
  });

  it("names every field a cloud channel lacks or should not have, in one answer", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: { provider: "whatsapp_cloud", phone: "+4915112340000" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details.map((d: { field: string }) => d.field)).toEqual([
      "phone_number_id",
      "waba_id",
      "access_token",
      "phone",
    ]);
    expect(w.graph.requests).toHaveLength(0);
  });

  it("connects the same number only once", async () => {
    await w.connect();
    const again = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        name: "Again",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().details[0].field).toBe("phone_number_id");
  });

  it("names the channel that holds a number only to its own account, and only once Meta accepted the token", async () => {
    const own = await w.connect();
    const other = await w.t.otherReseller();
    const ws = await w.t.createWorkspace({ name: "Other account's client", plan_id: "2" }, other);
    const attempt = (token: string) =>
      w.t.request("POST", `/api/v1/workspaces/${ws}/channels`, {
        token: other,
        body: {
          provider: "whatsapp_cloud",
          phone_number_id: phoneNumberId,
          waba_id: wabaId,
          access_token: token,
        },
      });
    const guessed = await attempt("EAAnotthetoken");
    expect(guessed.statusCode).toBe(422);
    expect(guessed.json().details[0].field).toBe("access_token");
    expect(guessed.body).not.toContain("already connected");
    const held = await attempt(accessToken);
    expect(held.statusCode).toBe(409);
    expect(held.json().error_code).toBe("channel_exists");
    expect(held.json().details[0]).toEqual({
      field: "phone_number_id",
      message: "is already connected to a workspace of another account on this service",
    });
    expect(held.body).not.toContain(own.id);
  });

  it("does not name another workspace's channel to a client of the same account", async () => {
    const own = await w.connect();
    const sibling = await w.t.createWorkspace({ name: "Sibling", plan_id: "2" });
    const client = await w.t.tokenWith(["campaigns:read", "campaigns:write"], sibling);
    const held = await w.t.request("POST", `/api/v1/workspaces/${sibling}/channels`, {
      token: client,
      body: {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: accessToken,
      },
    });
    expect(held.statusCode).toBe(409);
    expect(held.json().details[0]).toEqual({
      field: "phone_number_id",
      message: "is already connected to another workspace of this account",
    });
    expect(held.body).not.toContain(own.id);
  });

  it("takes an access token pasted with a trailing newline, and refuses one with a space inside with a 422", async () => {
    const res = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        phone_number_id: phoneNumberId,
        waba_id: wabaId,
        access_token: `${accessToken}\n`,
      },
    });
    expect(res.statusCode).toBe(201);
    const check = w.graph.requests.find((r) => r.path === `/${phoneNumberId}`);
    expect(check?.authorization).toBe(`Bearer ${accessToken}`);
    const inner = await w.t.request("POST", `${w.base}/channels`, {
      body: {
        provider: "whatsapp_cloud",
        phone_number_id: "5550001",
        waba_id: wabaId,
        access_token: "EAA secret",
      },
    });
    expect(inner.statusCode).toBe(422);
    expect(inner.json().details[0].field).toBe("access_token");
  });

  it("answers Meta's webhook verification with the challenge, and 403 to a wrong verify token", async () => {
    // Meta wants the challenge back as plain text, which the JSON conformance check cannot read.
    const ok = await w.t.app.inject({
      method: "GET",
      url: `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.challenge=1158201444`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["content-type"]).toMatch(/^text\/plain/);
    expect(ok.body).toBe("1158201444");
    const wrong = await w.t.app.inject({
      method: "GET",
      url: "/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=guess&hub.challenge=1158201444",
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).not.toContain("1158201444");
    // A repeated parameter is a wrong value too, not a validation error.
    const repeated = await w.t.app.inject({
      method: "GET",
      url: `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${verifyToken}&hub.verify_token=${verifyToken}&hub.challenge=1`,
    });
    expect(repeated.statusCode).toBe(403);
  });
});

describe("WhatsApp Cloud API channels without RESELLER_SECRET_KEY", () => {
  it("refuses a cloud channel with a 422 that says what to set", async () => {
    const w = await cloudWorld({ secretKey: null });
    try {
      const res = await w.t.request("POST", `${w.base}/channels`, {
        body: {
          provider: "whatsapp_cloud",
          name: "Shop",
          phone_number_id: phoneNumberId,
          waba_id: wabaId,
          access_token: accessToken,
        },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toContain("RESELLER_SECRET_KEY");
      expect(w.graph.requests).toHaveLength(0);
    } finally {
      await w.close();
    }
  });
});
