import { afterEach, describe, expect, it } from "vitest";
import {
  activeWorkspace,
  envelope,
  notFound,
  trialUsage,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const withUsage = { ...trialWorkspace, usage: trialUsage };

describe("reseller workspaces get", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubGet(id: string, body: object, status = 200) {
    api.pool
      .intercept({ path: `/api/v1/workspaces/${id}`, method: "GET" })
      .reply(status, body, { headers: jsonHeaders });
  }

  it("shows the record and usage against the plan's limits readably at a terminal", async () => {
    stubGet("ws_01trial", envelope(withUsage));
    const run = await runCli(["workspaces", "get", "ws_01trial"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Status:\s+trial\n/);
    expect(run.stdout).toMatch(/Plan:\s+Free Trial \(id 1, free-trial\)/);
    expect(run.stdout).toMatch(/Trial ends:\s+2026-12-06 09:30 UTC/);
    expect(run.stdout).toMatch(/Invitation:\s+sent 2026-11-22 09:30 UTC/);
    expect(run.stdout).toContain("Usage against the Free Trial plan");
    expect(run.stdout).toMatch(/Contacts:\s+1,234 \/ 5,000\n/);
    expect(run.stdout).toMatch(/Message templates:\s+5 \/ 5\n/);
    expect(run.stdout).toMatch(/Messages per month:\s+950 \/ unlimited this month\n/);
    expect(run.stdout).toMatch(
      /Contacts:\s+1,234 total · 1,000 opted_in · 200 not_set · 34 opted_out/,
    );
    expect(run.stdout).toMatch(/Campaigns:\s+2 total · 1 draft · 0 scheduled/);
    expect(run.stdout).toMatch(/Messages sent this month:\s+950/);
  });

  it("marks a limit that is reached in red", async () => {
    stubGet("ws_01trial", envelope(withUsage));
    const run = await runCli(["workspaces", "get", "ws_01trial"], {
      tty: true,
      env: { ...api.env, FORCE_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toContain("\u001b[31m5 / 5\u001b[39m");
    expect(run.stdout).not.toContain("\u001b[31m1,234 / 5,000");
  });

  it("says there are no limits for a workspace without a plan", async () => {
    stubGet("ws_02active", envelope({ ...activeWorkspace, usage: { ...trialUsage, limits: [] } }));
    const run = await runCli(["workspaces", "get", "ws_02active"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/Plan:\s+no plan/);
    expect(run.stdout).toContain("Usage (no plan, no limits)");
    expect(run.stdout).toMatch(/Invitation:\s+not sent/);
  });

  it("prints key<TAB>value lines named after the JSON paths when piped", async () => {
    stubGet("ws_01trial", envelope(withUsage));
    const run = await runCli(["workspaces", "get", "ws_01trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toContain("status\ttrial");
    expect(lines).toContain("plan_id\t1");
    expect(lines).toContain("trial_ends_at\t2026-12-06T09:30:00Z");
    expect(lines).toContain("usage.limits.contacts\t1234/5000");
    expect(lines).toContain("usage.limits.messages_per_month\t950/unlimited");
    expect(lines).toContain("usage.contacts\ttotal=1234 opted_in=1000 not_set=200 opted_out=34");
    expect(lines).toContain("usage.messages_sent_this_month\t950");
    expect(lines.every((line) => line.split("\t").length === 2)).toBe(true);
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("prints the service's data unchanged with --json", async () => {
    stubGet("ws_01trial", envelope(withUsage));
    const run = await runCli(["workspaces", "get", "ws_01trial", "--json"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(run.stdout)).toEqual(withUsage);
  });

  it("prints only the id with --quiet", async () => {
    stubGet("ws_01trial", envelope(withUsage));
    const run = await runCli(["workspaces", "get", "ws_01trial", "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("ws_01trial\n");
  });

  it("exits 4 for a workspace that does not exist or is another reseller's", async () => {
    stubGet("ws_nope", notFound("Workspace 'ws_nope'"), 404);
    const run = await runCli(["workspaces", "get", "ws_nope", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("Workspace 'ws_nope' was not found. (not_found, HTTP 404)");
    expect(JSON.parse(run.stdout).error.error_code).toBe("not_found");
  });

  it("encodes the id into the path", async () => {
    stubGet("a%2Fb", notFound("Workspace 'a/b'"), 404);
    const run = await runCli(["workspaces", "get", "a/b"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(4);
  });

  it("is a usage error without an id", async () => {
    const run = await runCli(["workspaces", "get"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'id'");
  });
});
