import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { FakeGraph, inboundWebhook } from "../helpers/fake-graph.js";
import { reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

const token = "EAAG-e2e-system-user-token-91c3";
const appSecret = "e2e-app-secret";

describe("a real number through the binary: serve --graph-url against a fake Graph API", () => {
  let graph: FakeGraph;
  let service: ServedService;
  let env: Record<string, string>;

  beforeAll(async () => {
    graph = new FakeGraph();
    const graphUrl = await graph.start();
    graph.addNumber("106540352242922", {
      token,
      wabaId: "102290129340398",
      display: "+49 1511 2340000",
      verifiedName: "Acme Shop",
      quality: "YELLOW",
    });
    service = await startServe({
      args: ["--graph-url", graphUrl, "--log-level", "info", "--log-format", "json"],
      env: {
        RESELLER_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
        RESELLER_WHATSAPP_APP_SECRET: appSecret,
        RESELLER_WHATSAPP_VERIFY_TOKEN: "e2e-verify",
      },
    });
    graph.webhookUrl = `${service.url}/webhooks/whatsapp`;
    graph.appSecret = appSecret;
    env = { ...serviceEnv(service), RESELLER_CONFIG_DIR: tempConfigDir() };
    const workspace = await reseller(
      [
        "workspaces",
        "create",
        "--name",
        "Acme",
        "--email",
        "owner@acme.test",
        "--plan",
        "2",
        "--json",
      ],
      { env },
    );
    env.RESELLER_WORKSPACE = JSON.parse(workspace.stdout).id;
  });
  afterAll(async () => {
    await service?.stop();
    await graph?.stop();
  });

  it("connects with the token on stdin, shows Meta's verified name, and never prints or logs the token", async () => {
    const add = await reseller(
      [
        "channels",
        "add",
        "--provider",
        "whatsapp_cloud",
        "--phone-number-id",
        "106540352242922",
        "--waba-id",
        "102290129340398",
        "--name",
        "Shop",
        "--access-token-stdin",
      ],
      { env, input: `${token}\n` },
    );
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stderr).toContain("verified as Acme Shop");
    const id = /as channel (ch_\w+)/.exec(add.stderr)?.[1] ?? "";
    const get = await reseller(["channels", "get", id], { env });
    expect(get.stdout).toContain("verified_name\tAcme Shop");
    expect(get.stdout).toContain("quality_rating\tYELLOW");
    for (const text of [add.stdout, add.stderr, get.stdout, service.stdout(), service.stderr()]) {
      expect(text).not.toContain(token);
    }
    expect(service.stdout()).toContain("/channels");
  });

  it("takes a signed webhook and refuses an unsigned one", async () => {
    const payload = inboundWebhook("106540352242922", "4915112345671", "hello", "wamid.E2E1");
    expect((await graph.deliver(payload)).status).toBe(200);
    expect((await graph.deliver(payload, { signature: null })).status).toBe(401);
  });
});
