import { afterEach, describe, expect, it } from "vitest";
import {
  channel,
  listEnvelope,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/channels`;
const firstPage = { page: "1", per_page: "20" };

describe("reseller channels list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  function stubPage(body: object) {
    stubRequest(api, "GET", path, body, { query: firstPage });
  }

  it("shows a table at a terminal", async () => {
    stubPage(listEnvelope([channel]));
    const run = await runCli(["channels", "list", "-w", workspaceId], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PHONE\s+STATUS\s+PROVIDER\s+CREATED$/);
    expect(lines[1]).toMatch(
      /^ch_01main\s+Main number\s+\+4915112340000\s+connected\s+sandbox\s+2026-11-22 09:30 UTC$/,
    );
  });

  it("prints raw tab-separated values piped, the service's array with --json", async () => {
    stubPage(listEnvelope([channel]));
    const piped = await runCli(["channels", "list"], {
      env: { ...api.env, RESELLER_WORKSPACE: workspaceId },
      dispatcher: api.agent,
    });
    expect(piped.stdout).toBe(
      "ch_01main\tMain number\t+4915112340000\tconnected\tsandbox\t2026-11-22T09:30:00Z\n",
    );
    stubPage(listEnvelope([channel]));
    const json = await runCli(["channels", "list", "--json", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual([channel]);
  });

  it("says how to add one when there is none, and needs a workspace", async () => {
    stubPage(listEnvelope([]));
    const run = await runCli(["channels", "list", "-w", workspaceId], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stderr).toContain("reseller channels add");
    const none = await runCli(["channels", "list"], { env: api.env, dispatcher: api.agent });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No workspace given.");
  });
});
