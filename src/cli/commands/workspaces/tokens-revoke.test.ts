import { afterEach, describe, expect, it } from "vitest";
import { envelope, pricingToken } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces tokens revoke", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubRevoke() {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial/tokens/tok_01pricing", method: "DELETE" })
      .reply(200, envelope({ ...pricingToken, revoked_at: "2026-11-22T10:00:00Z" }), {
        headers: jsonHeaders,
      });
  }

  it("asks at a terminal, naming the token and its workspace", async () => {
    stubRevoke();
    const prompter = scriptedPrompter({
      "Revoke workspace token tok_01pricing of workspace ws_01trial?": true,
    });
    const run = await runCli(
      ["workspaces", "tokens", "revoke", "tok_01pricing", "-w", "ws_01trial"],
      {
        tty: true,
        env: { ...api.env, NO_COLOR: "1" },
        dispatcher: api.agent,
        prompter,
      },
    );
    expect(run.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(run.stderr).toContain(
      "Revoked workspace token tok_01pricing (pricing page) of workspace ws_01trial",
    );
  });

  it("needs --yes without a terminal; with it, revokes and prints the record piped", async () => {
    const refused = await runCli(
      ["workspaces", "tokens", "revoke", "tok_01pricing", "-w", "ws_01trial"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Pass --yes");
    stubRevoke();
    const run = await runCli(
      ["workspaces", "tokens", "revoke", "tok_01pricing", "-w", "ws_01trial", "--yes"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toContain("revoked_at\t2026-11-22T10:00:00Z");
  });
});
