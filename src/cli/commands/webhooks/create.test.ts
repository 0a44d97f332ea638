import { afterEach, describe, expect, it } from "vitest";
import { envelope } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const secret = "whsec_s3cr3t_value_shown_once_9c2d";
const created = {
  id: "we_01endpoint",
  url: "https://crm.example.com/hooks",
  events: ["*"],
  description: null,
  enabled: true,
  secret_hint: "…9c2d",
  created_at: "2026-11-27T09:00:00Z",
  updated_at: "2026-11-27T09:00:00Z",
  secret,
};

describe("reseller webhooks create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubCreate() {
    api.pool
      .intercept({ path: "/api/v1/webhook-endpoints", method: "POST" })
      .reply(201, envelope(created), { headers: jsonHeaders });
  }

  it("prints the endpoint's id with --quiet, and its signing secret on stderr so it is not lost", async () => {
    stubCreate();
    const run = await runCli(["webhooks", "create", "--url", created.url, "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${created.id}\n`);
    expect(run.stderr).toBe(`Signing secret of ${created.id} (shown only this once): ${secret}\n`);
  });

  it("refuses a URL or an event type the service would refuse before any request, naming the flag (exit 2)", async () => {
    for (const [args, message] of [
      [["webhooks", "create", "--url", "notaurl"], /^Error: --url /],
      [["webhooks", "create", "--url", "ftp://x/y"], /^Error: --url /],
      [
        ["webhooks", "create", "--url", created.url, "--events", "contact.opted_out,bogus.event"],
        /^Error: --events: unknown event type bogus.event\.\n.*Known: /s,
      ],
      [["webhooks", "update", "we_01endpoint", "--url", "notaurl"], /^Error: --url /],
      [["webhooks", "update", "we_01endpoint", "--events", "bogus"], /^Error: --events: /],
    ] as const) {
      const run = await runCli([...args], { env: api.env, dispatcher: api.agent });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
  });

  it("asks for a missing --url at a terminal, and names it where nothing is asked", async () => {
    api.pool
      .intercept({
        path: "/api/v1/webhook-endpoints",
        method: "POST",
        body: (body: string) => JSON.parse(body).url === created.url,
      })
      .reply(201, envelope(created), { headers: jsonHeaders });
    const prompter = scriptedPrompter({ "Endpoint URL": ` ${created.url} ` });
    const asked = await runCli(["webhooks", "create"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(asked.code, asked.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    const piped = await runCli(["webhooks", "create"], { env: api.env, dispatcher: api.agent });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain("Missing --url.");
  });
});
