import { afterEach, describe, expect, it } from "vitest";
import {
  envelope,
  pricingToken,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli, tempConfigDir } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const secret = "wsk_pricing_page_secret_0000_9f2c";

describe("reseller workspaces tokens create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubCreate(workspace: string) {
    api.pool
      .intercept({
        path: `/api/v1/workspaces/${workspace}/tokens`,
        method: "POST",
        body: JSON.stringify({ name: "pricing page", scopes: ["plans:read"] }),
      })
      .reply(201, envelope({ ...pricingToken, token: secret }), { headers: jsonHeaders });
  }
  const argv = [
    "workspaces",
    "tokens",
    "create",
    "--name",
    "pricing page",
    "--scope",
    "plans:read",
  ];

  it("creates a workspace token and shows its secret once with a note on stderr", async () => {
    stubCreate("ws_01trial");
    const run = await runCli([...argv, "-w", "ws_01trial"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Kind:\s+workspace/);
    expect(run.stdout).toMatch(/Workspace:\s+ws_01trial/);
    expect(run.stdout).toMatch(new RegExp(`Token:\\s+${secret}`));
    expect(run.stderr).toContain(
      "Created workspace token tok_01pricing of workspace ws_01trial. Store the token now: it is shown only this once",
    );
  });

  it("uses the profile's default workspace, set by `workspaces use`", async () => {
    const dir = tempConfigDir();
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial", method: "GET" })
      .reply(200, envelope({ ...trialWorkspace, usage: trialUsage }), { headers: jsonHeaders });
    const env = { ...api.env, RESELLER_CONFIG_DIR: dir };
    expect(
      (await runCli(["workspaces", "use", "ws_01trial"], { env, dispatcher: api.agent })).code,
    ).toBe(0);
    stubCreate("ws_01trial");
    const run = await runCli([...argv, "--json"], { env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).token).toBe(secret);
  });

  it("prints only the id with --quiet, and the secret on stderr", async () => {
    stubCreate("ws_01trial");
    const run = await runCli([...argv, "-w", "ws_01trial", "--quiet"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/^tok_\w+\n$/);
    expect(run.stderr).toContain(secret);
  });
});
