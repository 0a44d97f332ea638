import { afterEach, describe, expect, it } from "vitest";
import {
  completedCampaign,
  draftCampaign,
  envelope,
  errorBody,
  preview,
  runningCampaign,
  scheduledCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/campaigns`;
const id = draftCampaign.id;

describe("reseller campaigns launch", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  it("needs --yes without a terminal, and launches nothing", async () => {
    stubRequest(api, "GET", `${path}/${id}`, envelope(draftCampaign));
    const run = await runCli(["campaigns", "launch", id], { env: env(), dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Launch campaign ${id} (${draftCampaign.name}) now: confirmation needed`,
    );
    expect(run.stderr).toContain("Pass --yes");
  });

  it("exits 5 for a campaign that has ended, without a terminal too, rather than asking for --yes", async () => {
    stubRequest(api, "GET", `${path}/${completedCampaign.id}`, envelope(completedCampaign));
    const run = await runCli(["campaigns", "launch", completedCampaign.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("is completed; only a draft can be launched.");
    // With --json, the service's error code, as with --yes where the service refuses it.
    stubRequest(api, "GET", `${path}/${completedCampaign.id}`, envelope(completedCampaign));
    const json = await runCli(["campaigns", "launch", completedCampaign.id, "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout).error.error_code).toBe("campaign_not_draft");
  });

  it("launches with --yes and points at stats --watch", async () => {
    const launch = stubRequest(api, "POST", `${path}/${id}/launch`, envelope(runningCampaign));
    const run = await runCli(["campaigns", "launch", id, "--yes"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(launch.body()).toBeUndefined();
    expect(run.stdout).toContain("status\trunning\n");
    expect(run.stderr).toContain(`reseller campaigns stats ${id} --watch`);
  });

  it("says on stderr, --json too, when the launch messages no one", async () => {
    const notice = {
      field: "audience",
      message: "none of its 2 contacts has opted in, so the campaign messages no one.",
    };
    for (const mode of [[], ["--json"]]) {
      stubRequest(api, "POST", `${path}/${id}/launch`, {
        ...envelope(runningCampaign),
        meta: { notices: [notice] },
      });
      const run = await runCli(["campaigns", "launch", id, "--yes", ...mode], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`audience: ${notice.message}`);
    }
  });

  it("names the campaign and its recipients at a terminal and asks; no launches nothing", async () => {
    stubRequest(api, "GET", `${path}/${id}`, envelope(draftCampaign));
    const check = stubRequest(api, "POST", `${path}/preview`, envelope(preview));
    const prompter = scriptedPrompter({ "Launch campaign": false });
    const run = await runCli(["campaigns", "launch", id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(check.body()).toEqual({
      name: "Spring launch",
      channel_id: draftCampaign.channel_id,
      template_name: "spring_news",
      template_language: "en_US",
      audience: { all: true },
      variable_mapping: { "1": "first_name" },
    });
    expect(prompter.asked).toEqual([
      `Launch campaign ${id} (Spring launch) now, messaging 4 contacts?`,
    ]);
    expect(run.stderr).toContain(
      "spring_news (en_US) to all contacts: 4 with consent, 2 skipped; 9,998 messages left this month.",
    );
    expect(run.stderr).toContain(`Cancelled: campaign ${id} (Spring launch) was not launched.`);
  });

  it("sends --idempotency-key on the preview and <key>-2 on the launch, so neither is taken for the other", async () => {
    const keys: string[] = [];
    const keyed = (route: string, answer: unknown) =>
      api.pool
        .intercept({
          path: route,
          method: "POST",
          headers: (h: Record<string, string>) => {
            keys.push(`${route.split("/").at(-1)} ${h["idempotency-key"]}`);
            return true;
          },
        })
        .reply(200, answer as object, { headers: { "content-type": "application/json" } });
    stubRequest(api, "GET", `${path}/${id}`, envelope(draftCampaign));
    keyed(`${path}/preview`, envelope(preview));
    keyed(`${path}/${id}/launch`, envelope(runningCampaign));
    const run = await runCli(["campaigns", "launch", id, "--idempotency-key", "spring-1"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter: scriptedPrompter({ "Launch campaign": true }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(keys)).toEqual(new Set(["preview spring-1", "launch spring-1-2"]));
  });

  it("launches after a yes at a terminal, still asking when the preview is refused", async () => {
    stubRequest(api, "GET", `${path}/${id}`, envelope(draftCampaign));
    stubRequest(
      api,
      "POST",
      `${path}/preview`,
      errorBody("template_not_approved", "Template 'spring_news' (en_US) is paused, not approved."),
      { status: 422 },
    );
    stubRequest(api, "POST", `${path}/${id}/launch`, envelope(runningCampaign));
    const prompter = scriptedPrompter({ "Launch campaign": true });
    const run = await runCli(["campaigns", "launch", id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual([`Launch campaign ${id} (Spring launch) now?`]);
    expect(run.stderr).toContain("Preflight check: Template 'spring_news' (en_US) is paused");
    expect(run.stdout).toMatch(/Status:\s+running/);
  });

  it("exits 5 without asking for a campaign that is not a draft", async () => {
    for (const campaign of [scheduledCampaign, completedCampaign]) {
      stubRequest(api, "GET", `${path}/${campaign.id}`, envelope(campaign));
      const run = await runCli(["campaigns", "launch", campaign.id], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({}),
      });
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(`is ${campaign.status}; only a draft can be launched.`);
    }
  });

  it("points a paused campaign to resume rather than launch", async () => {
    const paused = { ...scheduledCampaign, status: "paused" };
    stubRequest(api, "GET", `${path}/${paused.id}`, envelope(paused));
    const run = await runCli(["campaigns", "launch", paused.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`Send the rest with \`reseller campaigns resume ${paused.id}\``);
  });

  it("exits 5 with the service's reason when the quota cannot carry it", async () => {
    stubRequest(
      api,
      "POST",
      `${path}/${id}/launch`,
      errorBody("plan_limit_exceeded", "The plan allows 10000 messages per month; 9999 are used.", [
        { field: "messages_per_month", message: "limit 10000, used 9999" },
      ]),
      { status: 409 },
    );
    const run = await runCli(["campaigns", "launch", id, "--yes", "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout).error).toMatchObject({ error_code: "plan_limit_exceeded" });
  });
});
