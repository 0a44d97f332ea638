import { afterEach, describe, expect, it } from "vitest";
import { envelope, trialWorkspace } from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces activate", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("sets status active without asking, even without a terminal", async () => {
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial",
        method: "PATCH",
        body: JSON.stringify({ status: "active" }),
      })
      .reply(200, envelope({ ...trialWorkspace, status: "active" }), { headers: jsonHeaders });
    const run = await runCli(["workspaces", "activate", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toContain("status\tactive");
    expect(run.stderr).toBe("Workspace ws_01trial (Acme Bakery) is active.\n");
  });
});
