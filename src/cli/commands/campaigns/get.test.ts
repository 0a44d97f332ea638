import { afterEach, describe, expect, it } from "vitest";
import {
  draftCampaign,
  envelope,
  errorBody,
  scheduledCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = (id: string) => `/api/v1/workspaces/${workspaceId}/campaigns/${id}`;

describe("reseller campaigns get", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  it("shows the audience and the variables as {{n}}→field at a terminal", async () => {
    stubRequest(api, "GET", path(scheduledCampaign.id), envelope(scheduledCampaign));
    const run = await runCli(["campaigns", "get", scheduledCampaign.id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Status:\s+scheduled\n/);
    expect(run.stdout).toMatch(/Audience:\s+tags vip, gold\n/);
    expect(run.stdout).toMatch(/Variables:\s+\{\{1\}\}→first_name, \{\{2\}\}→custom\.city\n/);
    expect(run.stdout).toMatch(/Scheduled:\s+2030-12-01 09:00 UTC\n/);
  });

  it("prints key<TAB>value piped, and tells how to launch a draft", async () => {
    stubRequest(api, "GET", path(draftCampaign.id), envelope(draftCampaign));
    const run = await runCli(["campaigns", "get", draftCampaign.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.stdout).toContain("audience\tall\n");
    expect(run.stdout).toContain("variable_mapping\t1=first_name\n");
    expect(run.stdout).toContain("failure_reason\t\n");
    expect(run.stderr).toContain("reseller campaigns launch cmp_01spring");
  });

  it("passes the service's record through with --json and exits 4 for an unknown id", async () => {
    stubRequest(api, "GET", path(draftCampaign.id), envelope({ ...draftCampaign, extra: 1 }));
    const json = await runCli(["campaigns", "get", draftCampaign.id, "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual({ ...draftCampaign, extra: 1 });
    stubRequest(
      api,
      "GET",
      path("cmp_nope"),
      errorBody("not_found", "Campaign 'cmp_nope' was not found."),
      {
        status: 404,
      },
    );
    const missing = await runCli(["campaigns", "get", "cmp_nope"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("Campaign 'cmp_nope' was not found.");
  });
});
