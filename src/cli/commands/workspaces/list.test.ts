import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  activeWorkspace,
  listEnvelope,
  trialWorkspace,
} from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubPage(query: Record<string, string>, body: object) {
    api.pool
      .intercept({ path: "/api/v1/workspaces", method: "GET", query })
      .reply(200, body, { headers: jsonHeaders });
  }
  const firstPage = { page: "1", per_page: "20" };

  it("shows a table with status and plan names at a terminal", async () => {
    stubPage(firstPage, listEnvelope([trialWorkspace, activeWorkspace]));
    const run = await runCli(["workspaces", "list"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+PLAN\s+CONTACT\s+TRIAL ENDS\s+CREATED$/);
    expect(lines[1]).toMatch(
      /^ws_01trial\s+Acme Bakery\s+trial\s+Free Trial\s+owner@acme\.test\s+2026-12-06\s+2026-11-22$/,
    );
    expect(lines[2]).toMatch(/^ws_02active\s+Beta Shop\s+active\s+no plan\s+team@beta\.test/);
    expect(run.stderr).toBe("");
  });

  it("colours status words at a terminal unless told not to", async () => {
    stubPage(firstPage, listEnvelope([activeWorkspace]));
    const run = await runCli(["workspaces", "list"], {
      tty: true,
      env: { ...api.env, FORCE_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toContain("\u001b[32mactive\u001b[39m");
  });

  it("prints tab-separated raw values without header or colour when piped", async () => {
    stubPage(firstPage, listEnvelope([trialWorkspace, activeWorkspace]));
    const run = await runCli(["workspaces", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.stdout).toBe(
      "ws_01trial\tAcme Bakery\ttrial\t1\towner@acme.test\t2026-12-06T09:30:00Z\t2026-11-22T09:30:00Z\n" +
        "ws_02active\tBeta Shop\tactive\t\tteam@beta.test\t\t2026-11-21T08:00:00Z\n",
    );
  });

  it("paints piped status words when FORCE_COLOR asks, leaving every value as piped without it", async () => {
    stubPage(firstPage, listEnvelope([trialWorkspace, activeWorkspace]));
    const run = await runCli(["workspaces", "list"], {
      env: { ...api.env, FORCE_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toContain("\tBeta Shop\t\u001b[32mactive\u001b[39m\t");
    expect(stripVTControlCharacters(run.stdout)).toBe(
      "ws_01trial\tAcme Bakery\ttrial\t1\towner@acme.test\t2026-12-06T09:30:00Z\t2026-11-22T09:30:00Z\n" +
        "ws_02active\tBeta Shop\tactive\t\tteam@beta.test\t\t2026-11-21T08:00:00Z\n",
    );
  });

  it("prints the service's array unchanged with --json, unknown fields included", async () => {
    stubPage(firstPage, listEnvelope([trialWorkspace, activeWorkspace]));
    const run = await runCli(["workspaces", "list", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(run.stdout)).toEqual([trialWorkspace, activeWorkspace]);
    expect(run.stderr).toBe("");
  });

  it("prints CSV with wire field names, and ids only with --quiet", async () => {
    stubPage(firstPage, listEnvelope([trialWorkspace]));
    const csv = await runCli(["workspaces", "list", "--csv"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(csv.stdout.split("\n")[0]).toBe(
      "id,name,status,plan_id,contact_email,trial_ends_at,created_at",
    );
    stubPage(firstPage, listEnvelope([trialWorkspace, activeWorkspace]));
    const quiet = await runCli(["workspaces", "list", "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(quiet.stdout).toBe("ws_01trial\nws_02active\n");
  });

  it("passes --status, --page and --per-page, and says on stderr where the page stands", async () => {
    stubPage(
      { status: "trial", page: "2", per_page: "1" },
      listEnvelope([trialWorkspace], { page: 2, per_page: 1, total: 3, total_pages: 3 }),
    );
    const run = await runCli(
      ["workspaces", "list", "--status", "trial", "--page", "2", "--per-page", "1"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toHaveLength(2);
    expect(run.stderr).toBe(
      "Page 2 of 3 (3 workspaces): --page 3 for the next, --all for every page.\n",
    );
  });

  it("follows next_cursor from the first page to the last with --all", async () => {
    stubPage(
      { per_page: "1" },
      listEnvelope([trialWorkspace], { per_page: 1, total: 2, total_pages: 2, next_cursor: "c1" }),
    );
    stubPage(
      { per_page: "1", cursor: "c1" },
      listEnvelope([activeWorkspace], { page: 2, per_page: 1, total: 2, total_pages: 2 }),
    );
    const run = await runCli(["workspaces", "list", "--all", "--per-page", "1", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).map((w: { id: string }) => w.id)).toEqual([
      "ws_01trial",
      "ws_02active",
    ]);
  });

  it("says how to create one when there are none, at a terminal, on stderr (it is not data)", async () => {
    stubPage(firstPage, listEnvelope([]));
    const run = await runCli(["workspaces", "list"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stderr).toContain("reseller workspaces create");
    expect(run.stdout).toBe("");
  });

  it("refuses an unknown status, and a per-page over 100, before any request", async () => {
    const status = await runCli(["workspaces", "list", "--status", "deleted"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(status.code).toBe(2);
    expect(status.stderr).toContain("Allowed choices are active, trial, suspended, archived");
    const perPage = await runCli(["workspaces", "list", "--per-page", "101"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(perPage.code).toBe(2);
    expect(perPage.stderr).toContain("--per-page expects a whole number from 1 to 100");
  });
});
