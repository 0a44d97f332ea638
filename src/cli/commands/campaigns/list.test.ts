import { afterEach, describe, expect, it } from "vitest";
import {
  failedCampaign,
  listEnvelope,
  scheduledCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/campaigns`;
const firstPage = { page: "1", per_page: "20" };

describe("reseller campaigns list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("shows status (with the failure reason), template and audience at a terminal", async () => {
    stubRequest(api, "GET", path, listEnvelope([scheduledCampaign, failedCampaign]), {
      query: firstPage,
    });
    const run = await runCli(["campaigns", "list", "-w", workspaceId], {
      tty: true,
      columns: 200,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^ID\s+NAME\s+STATUS\s+TEMPLATE\s+LANGUAGE\s+CHANNEL\s+AUDIENCE\s+SCHEDULED\s+CREATED$/,
    );
    expect(lines[1]).toMatch(
      /^cmp_02vip\s+VIP preview\s+scheduled\s+spring_news\s+en_US\s+ch_01main\s+tags vip, gold\s+2030-12-01 09:00 UTC/,
    );
    expect(lines[2]).toMatch(
      /^cmp_01spring\s+Spring launch\s+failed \(workspace_suspended\)\s+spring_news.*all contacts/,
    );
  });

  it("passes --status, prints raw values piped and the array with --json", async () => {
    stubRequest(api, "GET", path, listEnvelope([failedCampaign]), {
      query: { ...firstPage, status: "failed" },
    });
    const piped = await runCli(["campaigns", "list", "--status", "failed"], {
      env: { ...api.env, RESELLER_WORKSPACE: workspaceId },
      dispatcher: api.agent,
    });
    expect(piped.stdout).toBe(
      "cmp_01spring\tSpring launch\tfailed\tspring_news\ten_US\tch_01main\tall\t\t2026-11-22T09:30:00Z\n",
    );
    stubRequest(api, "GET", path, listEnvelope([failedCampaign]), { query: firstPage });
    const json = await runCli(["campaigns", "list", "--json", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual([failedCampaign]);
  });

  it("refuses a status outside the vocabulary before any request", async () => {
    const run = await runCli(["campaigns", "list", "--status", "done", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("draft, scheduled, running, paused, completed, failed, cancelled");
  });
});
