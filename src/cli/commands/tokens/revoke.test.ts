import { afterEach, describe, expect, it } from "vitest";
import { ciToken, envelope, notFound } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const revoked = { ...ciToken, revoked_at: "2026-11-22T10:00:00Z" };

describe("reseller tokens revoke", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubRevoke() {
    api.pool
      .intercept({ path: "/api/v1/tokens/tok_02ci", method: "DELETE" })
      .reply(200, envelope(revoked), { headers: jsonHeaders });
  }

  it("asks at a terminal, then revokes", async () => {
    stubRevoke();
    const prompter = scriptedPrompter({ "Revoke reseller token tok_02ci?": true });
    const run = await runCli(["tokens", "revoke", "tok_02ci"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual(["Revoke reseller token tok_02ci?"]);
    expect(run.stdout).toMatch(/Revoked:\s+2026-11-22 10:00 UTC/);
    expect(run.stderr).toContain(
      "Revoked reseller token tok_02ci (ci); it answers 401 from now on.",
    );
  });

  it("revokes nothing when the answer is no", async () => {
    const run = await runCli(["tokens", "revoke", "tok_02ci"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter: scriptedPrompter({ Revoke: false }),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Cancelled: tok_02ci was not revoked.");
  });

  it("needs --yes without a terminal", async () => {
    const run = await runCli(["tokens", "revoke", "tok_02ci"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Revoke reseller token tok_02ci: confirmation needed");
  });

  it("revokes with --yes and prints the service's data with --json", async () => {
    stubRevoke();
    const run = await runCli(["tokens", "revoke", "tok_02ci", "--yes", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(revoked);
  });

  it("exits 4 for a token that is not the reseller's", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/tok_theirs", method: "DELETE" })
      .reply(404, notFound("Token 'tok_theirs'"), { headers: jsonHeaders });
    const run = await runCli(["tokens", "revoke", "tok_theirs", "-y"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
  });
});
