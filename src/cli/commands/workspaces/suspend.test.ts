import { afterEach, describe, expect, it } from "vitest";
import {
  envelope,
  notFound,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces suspend", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubGet(status = "trial") {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial", method: "GET" })
      .reply(200, envelope({ ...trialWorkspace, status, usage: trialUsage }), {
        headers: jsonHeaders,
      });
  }
  function stubSuspend() {
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial",
        method: "PATCH",
        body: JSON.stringify({ status: "suspended" }),
      })
      .reply(200, envelope({ ...trialWorkspace, status: "suspended" }), { headers: jsonHeaders });
  }

  it("names the workspace and asks at a terminal, then suspends", async () => {
    stubGet();
    stubSuspend();
    const prompter = scriptedPrompter({ "Suspend workspace ws_01trial (Acme Bakery)?": true });
    const run = await runCli(["workspaces", "suspend", "ws_01trial"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(run.stdout).toMatch(/Status:\s+suspended/);
    expect(run.stderr).toContain("Workspace ws_01trial (Acme Bakery) is suspended");
    expect(run.stderr).toContain("reseller workspaces activate ws_01trial");
  });

  it("says that activating a suspended trial ends the trial, rather than calling it an undo", async () => {
    stubSuspend();
    const run = await runCli(["workspaces", "suspend", "ws_01trial", "--yes"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stderr).toBe(
      "Workspace ws_01trial (Acme Bakery) is suspended during its trial; `reseller workspaces activate ws_01trial` would make it active and end the trial, so it keeps its plan with no end date.\n",
    );
  });

  it("changes nothing when the answer is no", async () => {
    stubGet();
    const run = await runCli(["workspaces", "suspend", "ws_01trial"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter: scriptedPrompter({ "Suspend workspace": false }),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "Cancelled: workspace ws_01trial (Acme Bakery) was not suspended.",
    );
  });

  it("does not ask about a workspace that is already suspended", async () => {
    stubGet("suspended");
    const run = await runCli(["workspaces", "suspend", "ws_01trial"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter: scriptedPrompter({}),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("is already suspended");
  });

  it("needs --yes without a terminal, and sends nothing without it", async () => {
    const run = await runCli(["workspaces", "suspend", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Suspend workspace ws_01trial: confirmation needed");
    expect(run.stderr).toContain("Pass --yes");
  });

  it("suspends at once with --yes, printing the service's data with --json", async () => {
    stubSuspend();
    const run = await runCli(["workspaces", "suspend", "ws_01trial", "--yes", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ...trialWorkspace, status: "suspended" });
  });

  it("exits 4 for a workspace that is not the reseller's", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial", method: "PATCH" })
      .reply(404, notFound("Workspace 'ws_01trial'"), { headers: jsonHeaders });
    const run = await runCli(["workspaces", "suspend", "ws_01trial", "-y"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
  });
});
