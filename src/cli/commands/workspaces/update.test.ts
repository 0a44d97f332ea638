import { afterEach, describe, expect, it } from "vitest";
import {
  envelope,
  notFound,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces update", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubPatch(expected: Record<string, unknown>, answer: Record<string, unknown>) {
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial",
        method: "PATCH",
        body: (body: string) => JSON.stringify(JSON.parse(body)) === JSON.stringify(expected),
      })
      .reply(200, envelope({ ...trialWorkspace, ...answer }), { headers: jsonHeaders });
  }

  it("sends only the name when only --name is given, and shows the record", async () => {
    stubPatch({ name: "Acme GmbH" }, { name: "Acme GmbH" });
    const run = await runCli(["workspaces", "update", "ws_01trial", "--name", "Acme GmbH"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Name:\s+Acme GmbH/);
    expect(run.stderr).toBe("Updated workspace ws_01trial (Acme GmbH).\n");
  });

  it("sends name and status together, printing the service's data with --json", async () => {
    stubPatch({ name: "Acme", status: "suspended" }, { name: "Acme", status: "suspended" });
    const run = await runCli(
      [
        ...["workspaces", "update", "ws_01trial", "--name", "Acme"],
        ...["--status", "suspended", "--yes", "--json"],
      ],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      ...trialWorkspace,
      name: "Acme",
      status: "suspended",
    });
  });

  it("asks before suspending, as `workspaces suspend` does: without a terminal it needs --yes", async () => {
    const refused = await runCli(["workspaces", "update", "ws_01trial", "--status", "suspended"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("confirmation needed");
    expect(refused.stderr).toContain("--yes");
    // At a terminal it names the workspace it would suspend, as `workspaces suspend` does.
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial", method: "GET" })
      .reply(200, envelope({ ...trialWorkspace, usage: trialUsage }), { headers: jsonHeaders });
    const prompter = scriptedPrompter({ "Suspend workspace ws_01trial (": false });
    const declined = await runCli(["workspaces", "update", "ws_01trial", "--status", "suspended"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(declined.code).toBe(0);
    expect(prompter.asked).toEqual([`Suspend workspace ws_01trial (${trialWorkspace.name})?`]);
    expect(declined.stderr).toContain("refuses writes");
    expect(declined.stderr).toContain("was not suspended.");
  });

  it("prints key<TAB>value lines when piped", async () => {
    stubPatch({ status: "active" }, { status: "active" });
    const run = await runCli(["workspaces", "update", "ws_01trial", "--status", "active"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout.split("\n")).toContain("status\tactive");
  });

  it("refuses a status the service does not let resellers set, before any request", async () => {
    const run = await runCli(["workspaces", "update", "ws_01trial", "--status", "archived"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Allowed choices are active, suspended");
  });

  it("moves the workspace to another plan with --plan, as `workspaces plan` does", async () => {
    stubPatch({ name: "Acme", plan_id: "3" }, { name: "Acme", plan_id: "3", status: "active" });
    const run = await runCli(
      ["workspaces", "update", "ws_01trial", "--name", "Acme", "--plan", "3", "--json"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ plan_id: "3", status: "active" });
  });

  it("is a usage error when there is nothing to change or the name is empty", async () => {
    const nothing = await runCli(["workspaces", "update", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("Nothing to change: pass --name, --status or --plan.");
    const empty = await runCli(["workspaces", "update", "ws_01trial", "--name", " "], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--name must not be empty.");
  });

  it("exits 4 for another reseller's workspace", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_theirs", method: "PATCH" })
      .reply(404, notFound("Workspace 'ws_theirs'"), { headers: jsonHeaders });
    const run = await runCli(["workspaces", "update", "ws_theirs", "--name", "Mine now"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
  });
});
