import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli, scriptedPrompter, tempConfigDir } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi, mockBaseUrl } from "../../../../test/helpers/mock-api.js";

const current = {
  status: "success",
  data: {
    id: "tok_01",
    name: "initial",
    kind: "reseller",
    workspace_id: null,
    scopes: ["plans:read"],
    token_hint: "rsk_…abcd",
    created_at: "2026-11-22T09:30:00Z",
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
  },
  meta: {},
};

describe("reseller login", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubCurrent(token: string, status = 200) {
    api.pool
      .intercept({
        path: "/api/v1/tokens/current",
        method: "GET",
        headers: { authorization: `Bearer ${token}` },
      })
      .reply(
        status,
        status === 200
          ? current
          : {
              status: "error",
              error_code: "unauthenticated",
              message: "The token is invalid, revoked or expired.",
            },
        { headers: jsonHeaders },
      );
  }

  it("checks a token from stdin with the service and saves it in an owner-only file", async () => {
    stubCurrent("rsk_from_stdin_abcd");
    const dir = tempConfigDir();
    const run = await runCli(["login", "--base-url", mockBaseUrl, "--token-stdin"], {
      stdin: "rsk_from_stdin_abcd\n",
      env: { RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `Logged in to ${mockBaseUrl} with reseller token tok_01; saved to profile 'default'`,
    );
    const file = join(dir, "config.json");
    expect(JSON.parse(readFileSync(file, "utf8")).profiles.default).toEqual({
      base_url: mockBaseUrl,
      token: "rsk_from_stdin_abcd",
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("saves a --token given with a trailing line break without it, as every command reads it", async () => {
    stubCurrent("rsk_from_flag_abcd");
    const dir = tempConfigDir();
    const run = await runCli(
      ["login", "--base-url", mockBaseUrl, "--token", "rsk_from_flag_abcd\r\n"],
      {
        env: { RESELLER_CONFIG_DIR: dir },
        dispatcher: api.agent,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default.token).toBe(
      "rsk_from_flag_abcd",
    );
  });

  it("lists a stored profile with the password of its base URL hidden", async () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        profiles: {
          ops: { base_url: "http://ops:pwSECRET@api.example.test", token: "rsk_x_7777" },
        },
      }),
    );
    const run = await runCli(["profiles", "list", "--json"], { env: { RESELLER_CONFIG_DIR: dir } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("http://ops:***@api.example.test");
    expect(run.stdout).not.toContain("pwSECRET");
  });

  it("says in piped output which profile is active", async () => {
    const dir = tempConfigDir();
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        active_profile: "ops",
        profiles: {
          dev: { base_url: "http://localhost:8420", token: "rsk_x_1111" },
          ops: { base_url: "https://api.example.test", token: "rsk_x_7777" },
        },
      }),
    );
    const run = await runCli(["profiles", "list"], { env: { RESELLER_CONFIG_DIR: dir } });
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows.map((r) => [r[0], r.at(-1)])).toEqual([
      ["dev", "false"],
      ["ops", "true"],
    ]);
  });

  it("says when logging in to another profile makes it the active one", async () => {
    stubCurrent("rsk_staging_token_abcd");
    const dir = tempConfigDir();
    const run = await runCli(
      ["login", "--profile", "staging", "--base-url", mockBaseUrl, "--token-stdin"],
      {
        stdin: "rsk_staging_token_abcd\n",
        env: { RESELLER_CONFIG_DIR: dir },
        dispatcher: api.agent,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("It is now the active profile (was 'default').");
  });

  it("saves nothing when the service refuses the token, and says where tokens come from", async () => {
    stubCurrent("rsk_wrong_token_0000", 401);
    const dir = tempConfigDir();
    const run = await runCli(["login", "--base-url", mockBaseUrl, "--token-stdin"], {
      stdin: "rsk_wrong_token_0000",
      env: { RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("Check the token: a reseller token (rsk_…) comes from");
    expect(run.stderr).not.toContain("Run `reseller login`");
    const stored = (() => {
      try {
        return JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles;
      } catch {
        return {};
      }
    })();
    expect(stored).toEqual({});
  });

  it("asks for the base URL and the token at a terminal", async () => {
    stubCurrent("rsk_typed_token_1234");
    const prompter = scriptedPrompter({
      "base URL": mockBaseUrl,
      "API token": "rsk_typed_token_1234",
    });
    const run = await runCli(["login"], { tty: true, prompter, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual(["Service base URL", "API token (rsk_… or wsk_…)"]);
  });

  it("asks for the token again when Enter is pressed with nothing typed", async () => {
    stubCurrent("rsk_typed_token_1234");
    const prompter = scriptedPrompter({ "base URL": mockBaseUrl });
    const typed = ["", "  ", "rsk_typed_token_1234"];
    prompter.password = async (q) => {
      prompter.asked.push(q.message);
      return typed.shift() ?? "";
    };
    const run = await runCli(["login"], { tty: true, prompter, dispatcher: api.agent });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked.filter((q) => q.startsWith("API token"))).toHaveLength(3);
    expect(run.stderr).toContain("A token is required.");
    expect(run.stderr).not.toContain("--token-stdin");
  });

  it("takes RESELLER_TOKEN and RESELLER_BASE_URL as every command does, for a CI secret", async () => {
    stubCurrent("rsk_from_env_abcd");
    const dir = tempConfigDir();
    const run = await runCli(["login"], {
      env: {
        RESELLER_CONFIG_DIR: dir,
        RESELLER_BASE_URL: mockBaseUrl,
        RESELLER_TOKEN: "rsk_from_env_abcd\n",
      },
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default).toEqual({
      base_url: mockBaseUrl,
      token: "rsk_from_env_abcd",
    });
  });

  it("is a usage error naming --token-stdin when there is no terminal and no token", async () => {
    const run = await runCli(["login", "--base-url", mockBaseUrl], { dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Error: Missing token.");
    expect(run.stderr).toContain("--token-stdin");
  });

  it("never prompts when CI is set, even at a terminal, to anything (false and empty included)", async () => {
    for (const ci of ["true", "false", ""]) {
      const prompter = scriptedPrompter({});
      const run = await runCli(["login", "--base-url", mockBaseUrl], {
        tty: true,
        env: { CI: ci },
        prompter,
      });
      expect(run.code, `CI=${ci}`).toBe(2);
      expect(prompter.asked, `CI=${ci}`).toEqual([]);
    }
  });
});

describe("reseller auth status", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("says where each setting came from, with the token masked", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(200, current, { headers: jsonHeaders });
    const run = await runCli(["auth", "status", "--json"], {
      env: { ...api.env, RESELLER_WORKSPACE: "ws_123" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const status = JSON.parse(run.stdout);
    expect(status).toMatchObject({
      profile: "default",
      profile_source: "default",
      base_url: mockBaseUrl,
      base_url_source: "env",
      token: "rsk_…0000",
      token_source: "env",
      workspace: "ws_123",
      workspace_source: "env",
      valid: true,
    });
    expect(run.stdout).not.toContain("rsk_test_token_0000");
  });

  it("lets a flag win over the environment", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(200, current, { headers: jsonHeaders });
    const run = await runCli(["auth", "status", "--json", "--token", "rsk_flag_token_9999"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(run.stdout)).toMatchObject({ token: "rsk_…9999", token_source: "flag" });
  });

  it("exits 3 when not logged in", async () => {
    const run = await runCli(["auth", "status"], {});
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("valid\tfalse\n");
  });

  it("says a profile named by --profile or RESELLER_PROFILE does not exist, instead of 'not logged in'", async () => {
    const byFlag = await runCli(["--profile", "nope", "contacts", "list", "-w", "ws_1"], {});
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toContain("No profile named 'nope' (from --profile).");
    expect(byFlag.stderr).toContain("reseller login --profile nope");
    const byEnv = await runCli(["contacts", "list", "-w", "ws_1"], {
      env: { RESELLER_PROFILE: "nope" },
    });
    expect(byEnv.code).toBe(2);
    expect(byEnv.stderr).toContain("No profile named 'nope' (from RESELLER_PROFILE).");
    // The token from the environment does not make the named profile optional: nothing is sent.
    const withToken = await runCli(["--profile", "nope", "workspaces", "list"], {
      env: { RESELLER_TOKEN: "rsk_test_token_0000", RESELLER_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(withToken.code).toBe(2);
    expect(withToken.stderr).toContain("No profile named 'nope' (from --profile).");
  });

  it("names the unknown profile before asking for a workspace, which that profile may hold", async () => {
    const run = await runCli(["--profile", "nope", "contacts", "list"], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No profile named 'nope' (from --profile).");
    expect(run.stderr).not.toContain("No workspace given");
  });

  it("names a missing profile in auth status too, with the same exit 2", async () => {
    const run = await runCli(["auth", "status", "--json", "--profile", "nope"], {});
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      error_code: "usage",
      message:
        "Token not confirmed: no profile named 'nope' (from --profile): create it with `reseller login --profile nope`",
    });
  });
});

describe("reseller logout", () => {
  it("forgets the stored token but keeps the base URL", async () => {
    const api = mockApi();
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(200, current, { headers: jsonHeaders });
    const dir = tempConfigDir();
    await runCli(["login", "--base-url", mockBaseUrl, "--token-stdin"], {
      stdin: "rsk_some_token_5678",
      env: { RESELLER_CONFIG_DIR: dir },
      dispatcher: api.agent,
    });
    const run = await runCli(["logout"], { env: { RESELLER_CONFIG_DIR: dir } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Removed the token of profile 'default'.");
    expect(JSON.parse(readFileSync(join(dir, "config.json"), "utf8")).profiles.default).toEqual({
      base_url: mockBaseUrl,
    });
  });

  it("says how to switch back when the active profile is left without a token", async () => {
    const api = mockApi();
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(200, current, { headers: jsonHeaders })
      .times(2);
    const dir = tempConfigDir();
    for (const profile of ["default", "staging"]) {
      await runCli(["login", "--profile", profile, "--base-url", mockBaseUrl, "--token-stdin"], {
        stdin: "rsk_some_token_5678",
        env: { RESELLER_CONFIG_DIR: dir },
        dispatcher: api.agent,
      });
    }
    const run = await runCli(["logout", "--profile", "staging"], {
      env: { RESELLER_CONFIG_DIR: dir },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "Removed the token of profile 'staging'. 'staging' is still the active profile; `reseller profiles use default` switches to one with a token.",
    );
  });

  it("logs out of a profile that does not exist without creating it", async () => {
    const dir = tempConfigDir();
    const run = await runCli(["logout", "--profile", "ghost"], {
      env: { RESELLER_CONFIG_DIR: dir },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Profile 'ghost' had no stored token.");
    const list = await runCli(["profiles", "list", "--json"], {
      env: { RESELLER_CONFIG_DIR: dir },
    });
    expect(list.stdout).not.toContain("ghost");
  });
});
