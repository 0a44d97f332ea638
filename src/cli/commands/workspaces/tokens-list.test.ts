import { afterEach, describe, expect, it } from "vitest";
import { listEnvelope, notFound, pricingToken } from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces tokens list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubList(workspace: string, status = 200) {
    api.pool
      .intercept({
        path: `/api/v1/workspaces/${workspace}/tokens`,
        method: "GET",
        query: { page: "1", per_page: "20" },
      })
      .reply(status, status === 200 ? listEnvelope([pricingToken]) : notFound("Workspace"), {
        headers: jsonHeaders,
      });
  }

  it("lists the tokens of the workspace given with -w", async () => {
    stubList("ws_01trial");
    const run = await runCli(["workspaces", "tokens", "list", "-w", "ws_01trial"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /tok_01pricing\s+pricing page\s+plans:read\s+wsk_…9f2c\s+2026-11-22\s+—/,
    );
  });

  it("uses RESELLER_WORKSPACE without -w, and prints the service's array with --json", async () => {
    stubList("ws_01trial");
    const run = await runCli(["workspaces", "tokens", "list", "--json"], {
      env: { ...api.env, RESELLER_WORKSPACE: "ws_01trial" },
      dispatcher: api.agent,
    });
    expect(JSON.parse(run.stdout)).toEqual([pricingToken]);
  });

  it("is a usage error saying how to pick a workspace when none is set", async () => {
    const run = await runCli(["workspaces", "tokens", "list"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No workspace given.");
    expect(run.stderr).toContain("reseller workspaces use <id>");
  });

  it("exits 4 for another reseller's workspace", async () => {
    stubList("ws_theirs", 404);
    const run = await runCli(["workspaces", "tokens", "list", "-w", "ws_theirs"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
  });
});
