import { afterEach, describe, expect, it } from "vitest";
import {
  envelope,
  errorBody,
  runningCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/campaigns`;
const id = runningCampaign.id;

describe("reseller campaigns pause | resume | cancel", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  it("pauses and resumes, showing the campaign's new status", async () => {
    stubRequest(
      api,
      "POST",
      `${path}/${id}/pause`,
      envelope({ ...runningCampaign, status: "paused" }),
    );
    const paused = await runCli(["campaigns", "pause", id], { env: env(), dispatcher: api.agent });
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain("status\tpaused\n");
    expect(paused.stderr).toContain("reseller campaigns resume");
    stubRequest(api, "POST", `${path}/${id}/resume`, envelope(runningCampaign));
    const resumed = await runCli(["campaigns", "resume", id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("status\trunning\n");
  });

  it("exits 5 when the campaign's status does not allow the move", async () => {
    stubRequest(
      api,
      "POST",
      `${path}/${id}/resume`,
      errorBody(
        "campaign_state_conflict",
        `Campaign '${id}' is running; only a paused campaign can be resumed.`,
      ),
      { status: 409 },
    );
    const run = await runCli(["campaigns", "resume", id], { env: env(), dispatcher: api.agent });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("only a paused campaign can be resumed");
  });

  it("cancel needs --yes without a terminal and sends nothing without it", async () => {
    const run = await runCli(["campaigns", "cancel", id], { env: env(), dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Pass --yes");
  });

  it("cancel names the campaign at a terminal and asks; yes cancels", async () => {
    stubRequest(api, "GET", `${path}/${id}`, envelope(runningCampaign));
    stubRequest(
      api,
      "POST",
      `${path}/${id}/cancel`,
      envelope({ ...runningCampaign, status: "cancelled" }),
    );
    const prompter = scriptedPrompter({ "Cancel campaign": true });
    const run = await runCli(["campaigns", "cancel", id], {
      env: env(),
      dispatcher: api.agent,
      tty: true,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked[0]).toContain(runningCampaign.name);
    expect(run.stderr).toContain("count the recipients not sent as cancelled");
  });
});
