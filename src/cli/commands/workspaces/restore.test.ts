import { afterEach, describe, expect, it } from "vitest";
import {
  activeWorkspace,
  envelope,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces restore", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const stubGet = (workspace: Record<string, unknown>) =>
    api.pool
      .intercept({ path: `/api/v1/workspaces/${workspace.id}`, method: "GET" })
      .reply(200, envelope({ ...workspace, usage: trialUsage }), { headers: jsonHeaders });

  it("makes an archived workspace active again", async () => {
    stubGet({ ...trialWorkspace, status: "archived" });
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial",
        method: "PATCH",
        body: JSON.stringify({ status: "active" }),
      })
      .reply(200, envelope({ ...trialWorkspace, status: "active" }), { headers: jsonHeaders });
    const run = await runCli(["workspaces", "restore", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      "Workspace ws_01trial (Acme Bakery) is restored and active; its workspace tokens work again.\n",
    );
  });

  it("refuses a suspended workspace with exit 5 and points to activate, changing nothing", async () => {
    stubGet({ ...trialWorkspace, status: "suspended" });
    const run = await runCli(["workspaces", "restore", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("is suspended, not archived; nothing was restored.");
    expect(run.stderr).toContain("reseller workspaces activate ws_01trial");
  });

  it("says an active workspace was not archived, and exits 0", async () => {
    stubGet(activeWorkspace);
    const run = await runCli(["workspaces", "restore", "ws_02active", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).status).toBe("active");
  });
});
