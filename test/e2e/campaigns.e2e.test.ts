import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

/** Runs the binary and parses its --json output, failing with its stderr when it did not exit 0. */
async function json(args: string[], env: Record<string, string>) {
  const run = await reseller([...args, "--json"], { env });
  expect(run.exitCode, `${args.join(" ")}\n${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("channels, campaigns and sandbox replies through the binary against a real service", () => {
  let service: ServedService;
  let env: Record<string, string>;
  let channelId: string;
  let campaignId: string;
  /** Contact ids by first name. */
  const contacts: Record<string, string> = {};

  beforeAll(async () => {
    service = await startServe({ args: ["--review-delay", "0", "--throughput", "0"] });
    env = { ...serviceEnv(service), RESELLER_CONFIG_DIR: tempConfigDir() };
    const workspace = await json(
      ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "--plan", "2"],
      { ...env },
    );
    env.RESELLER_WORKSPACE = workspace.id;
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("connects a channel", async () => {
    const channel = await json(
      ["channels", "add", "--phone", "+4915112340000", "--name", "Main number"],
      env,
    );
    expect(channel).toMatchObject({ status: "connected", provider: "sandbox" });
    channelId = channel.id;
    const list = await json(["channels", "list"], env);
    expect(list.map((c: { id: string }) => c.id)).toEqual([channelId]);
  });

  it("gets an approved template and contacts of every consent state", async () => {
    const template = await json(
      [
        "templates",
        "create",
        "--name",
        "spring_news",
        "--category",
        "marketing",
        "--language",
        "en_US",
        "--body",
        "Hello {{1}}, our spring collection is here.",
        "--example",
        "Ada",
        "--wait",
        "--timeout",
        "20",
      ],
      env,
    );
    expect(template.status).toBe("approved");
    const people: [string, string, string][] = [
      ["Ada", "+4915112345671", "opted_in"],
      ["Bob", "+4915112345672", "opted_in"],
      ["Cy", "+4915112345673", "not_set"],
      ["Dee", "+4915112345674", "opted_in"],
      // Sandbox magic numbers: …4001 is refused (undeliverable), …4010 is never read.
      ["Fay", "+4915112344001", "opted_in"],
      ["Ivy", "+4915112344010", "opted_in"],
    ];
    for (const [name, phone, consent] of people) {
      const contact = await json(
        ["contacts", "upsert", "--phone", phone, "--first-name", name, "--opt-in", consent],
        env,
      );
      contacts[name] = contact.id;
    }
  });

  it("opts a contact out with an inbound STOP", async () => {
    const reply = await json(
      ["sandbox", "inbound", "--from", "+4915112345674", "--text", "STOP"],
      env,
    );
    expect(reply).toEqual({
      contact_id: contacts.Dee,
      action: "opted_out",
      opt_in_status: "opted_out",
    });
    const dee = await json(["contacts", "get", contacts.Dee ?? ""], env);
    expect(dee.opt_in_status).toBe("opted_out");
    expect(dee.opted_out_at).toEqual(expect.any(String));
  });

  it("previews with --dry-run, creating nothing", async () => {
    const preview = await json(
      [
        "campaigns",
        "create",
        "--name",
        "Spring launch",
        "--channel",
        channelId,
        "--template",
        "spring_news",
        "--language",
        "en_US",
        "--all",
        "--var",
        "1=first_name",
        "--dry-run",
      ],
      env,
    );
    expect(preview).toMatchObject({
      audience_total: 6,
      with_consent: 4,
      skipped_no_consent: 1,
      skipped_opted_out: 1,
      template: { body: "Hello {{1}}, our spring collection is here." },
      messages_left_this_month: 10000,
    });
    expect(await json(["campaigns", "list"], env)).toEqual([]);
  });

  it("refuses a template that is not approved in that language (exit 6)", async () => {
    const run = await reseller(
      [
        "campaigns",
        "create",
        "--name",
        "German",
        "--channel",
        channelId,
        "--template",
        "spring_news",
        "--language",
        "de",
        "--all",
        "--var",
        "1=first_name",
      ],
      { env },
    );
    expect(run.exitCode).toBe(6);
    expect(run.stderr).toContain("template_not_approved");
  });

  it("creates a draft without a terminal and launches it only with --yes", async () => {
    const campaign = await json(
      [
        "campaigns",
        "create",
        "--name",
        "Spring launch",
        "--channel",
        channelId,
        "--template",
        "spring_news",
        "--language",
        "en_US",
        "--all",
        "--var",
        "1=first_name",
      ],
      env,
    );
    expect(campaign).toMatchObject({ status: "draft", audience: { all: true } });
    campaignId = campaign.id;
    const refused = await reseller(["campaigns", "launch", campaignId], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("Pass --yes");
    const launched = await json(["campaigns", "launch", campaignId, "--yes"], env);
    expect(launched.status).toBe("running");
    const again = await reseller(["campaigns", "launch", campaignId, "--yes"], { env });
    expect(again.exitCode).toBe(5);
    expect(again.stderr).toContain("campaign_not_draft");
  });

  it("watches the stats until the campaign completes", async () => {
    const stats = await json(["campaigns", "stats", campaignId, "--watch"], env);
    expect(stats).toMatchObject({
      audience_total: 6,
      skipped_no_consent: 1,
      skipped_opted_out: 1,
      queued: 0,
      sent: 3,
      failed: 1,
      failures: [{ reason: "undeliverable", count: 1 }],
    });
    expect(stats.sent + stats.failed).toBe(4);
    const campaign = await json(["campaigns", "get", campaignId], env);
    expect(campaign.status).toBe("completed");
    const completed = await json(["campaigns", "list", "--status", "completed"], env);
    expect(completed.map((c: { id: string }) => c.id)).toEqual([campaignId]);
  });

  it("counts the sandbox's deliveries and reads as they arrive (…4010 is never read)", async () => {
    let stats = await json(["campaigns", "stats", campaignId], env);
    for (let i = 0; i < 30 && stats.read < 2; i++) {
      await sleep(500);
      stats = await json(["campaigns", "stats", campaignId], env);
    }
    expect(stats).toMatchObject({ sent: 3, delivered: 3, read: 2, delivery_rate: 1 });
    const piped = await reseller(["campaigns", "stats", campaignId], { env });
    expect(piped.stdout).toContain("status\tcompleted\n");
    expect(piped.stdout).toContain("failures\tundeliverable=1\n");
  });
});
