import { afterEach, describe, expect, it } from "vitest";
import { freePlan, planList, planMeta, starterPlan } from "../../../../test/fixtures/plans.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller plans get", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  /** The service's answer to GET /api/v1/plans/<id>. */
  function stubPlan(id: number, plan: object = starterPlan) {
    api.pool
      .intercept({ path: `/api/v1/plans/${id}`, method: "GET" })
      .reply(200, { status: "success", data: plan, meta: planMeta }, { headers: jsonHeaders });
  }

  it("shows the plan and its features readably at a terminal", async () => {
    stubPlan(2);
    const run = await runCli(["plans", "get", "2"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Price:\s+\$29\.50 \/ month/);
    expect(run.stdout).toMatch(/Sign-up link:\s+https:\/\/example\.test\/register\?plan=starter/);
    expect(run.stdout).toContain("Features");
    expect(run.stdout).toMatch(/Contacts\s+limit\s+unlimited/);
    expect(run.stdout).toMatch(/API access\s+boolean\s+included/);
  });

  it("prints field and raw value per line when piped, whether it is free, its trial and currency included", async () => {
    stubPlan(1, freePlan);
    const run = await runCli(["plans", "get", "1"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines).toContain("price\t0");
    expect(lines).toContain("is_public\ttrue");
    expect(lines).toContain("is_free\ttrue");
    expect(lines).toContain("trial_days\t14");
    expect(lines).toContain("currency\tUSD");
  });

  it("leaves the detail fields to the price at a terminal", async () => {
    stubPlan(1, freePlan);
    const run = await runCli(["plans", "get", "1"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/Price:\s+Free · 14-day trial/);
    expect(run.stdout).toMatch(/Visibility:\s+public/);
    expect(run.stdout).not.toContain("Trial days");
  });

  it("finds a plan by the slug `plans list` shows", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
      .reply(200, planList, { headers: jsonHeaders });
    stubPlan(2);
    const run = await runCli(["plans", "get", "starter", "--quiet"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("2\n");
  });

  it("prints only the plan id with --quiet", async () => {
    stubPlan(2);
    const run = await runCli(["plans", "get", "2", "--quiet"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("2\n");
  });

  it("exits 4 when the plan does not exist", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans/99", method: "GET" })
      .reply(
        404,
        { status: "error", error_code: "not_found", message: "Plan '99' was not found." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["plans", "get", "99"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("Plan '99' was not found. (not_found, HTTP 404)");
  });

  it("exits 4, as for an unknown id, when no plan has the slug or the id is no whole number", async () => {
    for (const given of ["startr", "1.5"]) {
      api.pool
        .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
        .reply(200, planList, { headers: jsonHeaders });
      const run = await runCli(["plans", "get", given, "--json"], {
        env: api.env,
        dispatcher: api.agent,
      });
      expect(run.code, given).toBe(4);
      expect(JSON.parse(run.stdout).error).toMatchObject({
        error_code: "not_found",
        message: `No plan has the id or slug '${given}'.`,
      });
    }
  });

  it("is a usage error (exit 2) for an empty id, before any request", async () => {
    const run = await runCli(["plans", "get", ""], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("It must not be empty.");
  });

  it("is a usage error (exit 2) without an id, before any request", async () => {
    const run = await runCli(["plans", "get"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing required argument 'id'");
  });
});
