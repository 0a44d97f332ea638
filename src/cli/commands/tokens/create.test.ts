import { afterEach, describe, expect, it } from "vitest";
import { ciToken, envelope } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const secret = "rsk_s3cr3t_value_shown_once_7a1b";
const created = { ...ciToken, token: secret };

describe("reseller tokens create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubCreate() {
    api.pool
      .intercept({
        path: "/api/v1/tokens",
        method: "POST",
        body: JSON.stringify({ name: "ci", scopes: ["workspaces:read", "workspaces:write"] }),
      })
      .reply(201, envelope(created), { headers: jsonHeaders });
  }
  const argv = [
    "tokens",
    "create",
    "--name",
    "ci",
    "--scope",
    "workspaces:read",
    "--scope",
    "workspaces:write",
  ];

  it("shows the secret once at a terminal with a clear note on stderr", async () => {
    stubCreate();
    const run = await runCli(argv, {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`Token:\\s+${secret}`));
    expect(run.stdout).toMatch(/Scopes:\s+workspaces:read workspaces:write/);
    expect(run.stderr).toContain("Created reseller token tok_02ci.");
    expect(run.stderr).toContain("it is shown only this once");
    expect(run.stderr).not.toContain(secret);
  });

  it("does not call a secret replayed under its idempotency key shown only once", async () => {
    api.pool.intercept({ path: "/api/v1/tokens", method: "POST" }).reply(201, envelope(created), {
      headers: { ...jsonHeaders, "idempotent-replayed": "true" },
    });
    const run = await runCli([...argv, "--idempotency-key", "ci-token-1"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("was created by an earlier run with this idempotency key");
    expect(run.stderr).not.toContain("shown only this once");
  });

  it("asks for the name and the scopes at a terminal when the flags leave them out", async () => {
    stubCreate();
    const prompter = scriptedPrompter({
      "Token name": "ci",
      Scopes: " workspaces:read, workspaces:write ",
    });
    const run = await runCli(["tokens", "create"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(2);
  });

  it("prints the service's data, secret included, with --json and nothing on stderr", async () => {
    stubCreate();
    const run = await runCli([...argv, "--json"], { env: api.env, dispatcher: api.agent });
    expect(JSON.parse(run.stdout)).toEqual(created);
    expect(run.stderr).toBe("");
  });

  it("sends --expires-at as the token's expires_at", async () => {
    const body = {
      name: "ci",
      scopes: ["workspaces:read", "workspaces:write"],
      expires_at: "2099-01-31T23:59:59Z",
    };
    api.pool
      .intercept({ path: "/api/v1/tokens", method: "POST", body: JSON.stringify(body) })
      .reply(201, envelope({ ...created, expires_at: body.expires_at }), { headers: jsonHeaders });
    const run = await runCli([...argv, "--expires-at", body.expires_at, "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).expires_at).toBe(body.expires_at);
  });

  it("refuses an --expires-at that is not a time, or one already past, before any request, exit 2", async () => {
    const run = await runCli([...argv, "--expires-at", "next week"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--expires-at");
    const past = await runCli([...argv, "--expires-at", "2020-01-01T00:00:00Z"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(past.code).toBe(2);
    expect(past.stderr).toContain(
      "--expires-at must be in the future; got '2020-01-01T00:00:00Z'.",
    );
  });

  it("prints only the id with --quiet, as every command does, and the secret on stderr", async () => {
    stubCreate();
    const run = await runCli([...argv, "-q"], { env: api.env, dispatcher: api.agent });
    expect(run.stdout).toMatch(/^tok_\w+\n$/);
    expect(run.stderr).toContain(secret);
  });

  it("prints key<TAB>value lines when piped, the secret among them", async () => {
    stubCreate();
    const run = await runCli(argv, { env: api.env, dispatcher: api.agent });
    expect(run.stdout.split("\n")).toContain(`token\t${secret}`);
    expect(run.stdout.split("\n")).toContain("workspace_id\t");
  });

  it("is a usage error without --name or --scope, before any request", async () => {
    const noName = await runCli(["tokens", "create", "--scope", "plans:read"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("Missing --name.");
    const noScope = await runCli(["tokens", "create", "--name", "ci"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(noScope.code).toBe(2);
    expect(noScope.stderr).toContain("Missing --scope");
  });

  it("refuses a scope outside the vocabulary before any request", async () => {
    const run = await runCli(["tokens", "create", "--name", "ci", "--scope", "everything"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Allowed choices are plans:read, workspaces:read");
  });

  it("explains a replayed key whose sealed answer cannot be opened (exit 5)", async () => {
    api.pool.intercept({ path: "/api/v1/tokens", method: "POST" }).reply(
      409,
      {
        status: "error",
        error_code: "secret_not_replayable",
        message: "The first request with this Idempotency-Key revealed a secret …",
        details: [{ field: "Idempotency-Key", message: "was used before" }],
      },
      { headers: jsonHeaders },
    );
    const run = await runCli([...argv, "--idempotency-key", "fixed"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("(secret_not_replayable, HTTP 409)");
    expect(run.stderr).toContain("Idempotency-Key: was used before");
  });
});
