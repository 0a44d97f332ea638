import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  envelope,
  notFound,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli, tempConfigDir } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces use", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  // Commands that only read their profile never create the file.
  const stored = (dir: string) =>
    existsSync(join(dir, "config.json"))
      ? JSON.parse(readFileSync(join(dir, "config.json"), "utf8"))
      : {};

  function stubGet(id: string, found = true) {
    api.pool
      .intercept({ path: `/api/v1/workspaces/${id}`, method: "GET" })
      .reply(
        found ? 200 : 404,
        found ? envelope({ ...trialWorkspace, usage: trialUsage }) : notFound(`Workspace '${id}'`),
        { headers: jsonHeaders },
      );
  }

  it("checks the workspace exists, then stores it as the profile's default", async () => {
    stubGet("ws_01trial");
    const dir = tempConfigDir();
    const run = await runCli(["workspaces", "use", "ws_01trial"], {
      env: { ...api.env, RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "Default workspace of profile 'default' is now ws_01trial (Acme Bakery).\n",
    );
    expect(stored(dir).profiles.default).toEqual({ workspace: "ws_01trial" });
  });

  it("stores it in the profile given by --profile, and reports it with --json", async () => {
    stubGet("ws_01trial");
    const dir = tempConfigDir();
    const run = await runCli(
      ["workspaces", "use", "ws_01trial", "--profile", "staging", "--json"],
      {
        env: { ...api.env, RESELLER_CONFIG_DIR: dir },
        dispatcher: api.agent,
      },
    );
    expect(JSON.parse(run.stdout)).toEqual({ profile: "staging", workspace_id: "ws_01trial" });
    expect(stored(dir).profiles.staging).toEqual({ workspace: "ws_01trial" });
  });

  it("says when RESELLER_WORKSPACE still overrides the stored default", async () => {
    stubGet("ws_01trial");
    const run = await runCli(["workspaces", "use", "ws_01trial"], {
      env: { ...api.env, RESELLER_WORKSPACE: "ws_other" },
      dispatcher: api.agent,
    });
    expect(run.stderr).toContain("RESELLER_WORKSPACE=ws_other is set and still takes precedence");
  });

  it("stores nothing and exits 4 for a workspace the token cannot see", async () => {
    stubGet("ws_nope", false);
    const dir = tempConfigDir();
    const run = await runCli(["workspaces", "use", "ws_nope"], {
      env: { ...api.env, RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("`reseller workspaces list` shows the workspaces");
    expect(JSON.stringify(stored(dir))).not.toContain("ws_nope");
  });
});
