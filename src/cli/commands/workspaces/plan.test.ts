import { afterEach, describe, expect, it } from "vitest";
import { planList } from "../../../../test/fixtures/plans.js";
import { activeWorkspace, envelope } from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces plan", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  /** Stubs the PATCH, answering only when the body names exactly `planId`. */
  function stubPatch(planId: string) {
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01active",
        method: "PATCH",
        body: JSON.stringify({ plan_id: planId }),
      })
      .reply(200, envelope(activeWorkspace), { headers: jsonHeaders });
  }

  it("moves the workspace to a plan given by its id, without reading the catalogue", async () => {
    stubPatch("2");
    const run = await runCli(["workspaces", "plan", "ws_01active", "2", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).id).toBe("ws_02active");
  });

  it("reports the service's refusal of the plan without another command's flag hint", async () => {
    api.pool.intercept({ path: "/api/v1/workspaces/ws_01active", method: "PATCH" }).reply(
      422,
      {
        status: "error",
        error_code: "validation_failed",
        message: "plan_id: no plan 999",
        details: [{ field: "plan_id", message: "no plan 999" }],
        request_id: "req_1",
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(["workspaces", "plan", "ws_01active", "999"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("no plan 999");
    expect(run.stderr).not.toContain("--plan");
  });

  it("takes the plan's slug from `plans list` as well, sending the plan's id", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
      .reply(200, planList, { headers: jsonHeaders });
    stubPatch("3");
    const run = await runCli(["workspaces", "plan", "ws_01active", "forever"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("is now on plan forever.");
  });

  it("refuses a slug no plan has before changing anything, exit 6 naming --plan's value and the slugs there are", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
      .reply(200, planList, { headers: jsonHeaders });
    const run = await runCli(["workspaces", "plan", "ws_01active", "forevr"], {
      env: api.env,
      dispatcher: api.agent,
    });
    // Exit 6, as the service's 422 for an unknown plan_id: the value is refused, not the usage.
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("No plan has the slug 'forevr'.");
    expect(run.stderr).toContain("free-trial, starter, forever");
  });
});
