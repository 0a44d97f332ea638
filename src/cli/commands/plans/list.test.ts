import { afterEach, describe, expect, it } from "vitest";
import { planList } from "../../../../test/fixtures/plans.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller plans list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubList(query: Record<string, string> = {}) {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query })
      .reply(200, planList, { headers: jsonHeaders });
  }

  it("shows a table with price, currency symbol and period suffix at a terminal", async () => {
    stubList();
    const run = await runCli(["plans", "list"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SLUG\s+PERIOD\s+PRICE\s+VISIBILITY\s+SIGN-UP LINK$/);
    expect(run.stdout).toContain("Free · 14-day trial");
    expect(run.stdout).toContain("$29.50 / month");
    expect(run.stdout).toContain("$499 once");
    expect(run.stderr).toBe("");
  });

  it("prints tab-separated rows without colour or header when piped, free, trial and currency included", async () => {
    stubList();
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    const [free, starter] = run.stdout.split("\n");
    expect(free).toBe(
      "1\tFree Trial\tfree-trial\tmonthly\t0\ttrue\thttps://example.test/register?plan=free-trial\ttrue\t14\tUSD",
    );
    expect(starter).toBe(
      "2\tStarter\tstarter\tmonthly\t29.5\ttrue\thttps://example.test/register?plan=starter\tfalse\t\tUSD",
    );
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("prints the service's data unchanged with --json, unknown fields included", async () => {
    stubList();
    const run = await runCli(["plans", "list", "--json"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(planList.data)));
    expect(JSON.parse(run.stdout).monthly[1].badge).toBe("popular");
  });

  it("refuses --json with --csv as a usage error (exit 2), before any request", async () => {
    const run = await runCli(["plans", "list", "--json", "--csv"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error.message).toBe(
      "--json and --csv each choose the output; give one.",
    );
  });

  it("refuses --quiet beside --json or --csv as a usage error (exit 2), naming both", async () => {
    const quietJson = await runCli(["plans", "list", "--json", "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(quietJson.code).toBe(2);
    expect(JSON.parse(quietJson.stdout).error.message).toBe(
      "--json and --quiet each choose the output; give one.",
    );
    const all = await runCli(["plans", "list", "--quiet", "--csv", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(all.stderr).toContain("--json, --csv and --quiet each choose the output; give one.");
  });

  it("shows one page of the catalogue with --page (and --per-page), --json keeping the service's groups", async () => {
    stubList();
    const all = await runCli(["plans", "list", "--all", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toEqual(JSON.parse(JSON.stringify(planList.data)));
    const flat = Object.values(planList.data).flat();
    stubList();
    const second = await runCli(["plans", "list", "--page", "2", "--per-page", "2"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(
      second.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t")[0]),
    ).toEqual(flat.slice(2, 4).map((p) => String(p.id)));
    expect(second.stderr).toContain(
      `Page 2 of ${Math.ceil(flat.length / 2)} (${flat.length} plans)`,
    );
    stubList();
    const json = await runCli(["plans", "list", "--page", "1", "--per-page", "1", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    const [period, plans] = Object.entries(planList.data)[0] ?? [];
    expect(JSON.parse(json.stdout)).toEqual({ [period ?? ""]: [plans?.[0]] });
  });

  it("prints CSV with wire field names as headers with --csv", async () => {
    stubList();
    const run = await runCli(["plans", "list", "--csv"], { env: api.env, dispatcher: api.agent });
    expect(run.stdout.split("\n")[0]).toBe(
      "id,name,slug,billing_period,price,is_public,registration_url,is_free,trial_days,currency",
    );
    expect(run.stdout.split("\n")).toHaveLength(5);
  });

  it("passes --billing-period and --include-private to the service", async () => {
    stubList({ billing_period: "lifetime", include_private: "true" });
    const run = await runCli(
      ["plans", "list", "--billing-period", "lifetime", "--include-private"],
      {
        env: api.env,
        dispatcher: api.agent,
      },
    );
    expect(run.code).toBe(0);
  });

  it("colours nothing when NO_COLOR is set, and colours at a terminal otherwise", async () => {
    stubList();
    const colored = await runCli(["plans", "list"], {
      tty: true,
      env: { ...api.env, FORCE_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(colored.stdout).toContain("\u001b[");
  });

  it("exits 3 with a hint to log in when the service refuses the token", async () => {
    api.pool.intercept({ path: "/api/v1/plans", method: "GET" }).reply(
      401,
      {
        status: "error",
        error_code: "unauthenticated",
        message: "The token is invalid, revoked or expired.",
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "Error: The token is invalid, revoked or expired. (unauthenticated, HTTP 401)",
    );
    expect(run.stderr).toContain("Request id: req_test");
    expect(run.stderr).toContain("reseller login");
    expect(run.stdout).toBe("");
  });

  it("also prints the error as JSON on stdout with --json", async () => {
    api.pool.intercept({ path: "/api/v1/plans", method: "GET" }).reply(
      403,
      {
        status: "error",
        error_code: "insufficient_scope",
        message: "This endpoint needs the 'plans:read' scope.",
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(["plans", "list", "--json"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: 403,
        error_code: "insufficient_scope",
        message: "This endpoint needs the 'plans:read' scope.",
        details: [],
        request_id: "req_test",
      },
    });
  });

  it("waits out a 429 as Retry-After says, saying so on stderr, then succeeds", async () => {
    api.pool.intercept({ path: "/api/v1/plans", method: "GET" }).reply(
      429,
      { status: "error", error_code: "rate_limited", message: "slow down" },
      {
        headers: { ...jsonHeaders, "retry-after": "2" },
      },
    );
    stubList();
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /HTTP 429 on GET \/api\/v1\/plans; retrying in 2\.\d s \(attempt 1\)/,
    );
  });

  it("exits 7 when the rate limit outlasts the retries", async () => {
    for (let i = 0; i < 4; i++) {
      api.pool.intercept({ path: "/api/v1/plans", method: "GET" }).reply(
        429,
        { status: "error", error_code: "rate_limited", message: "slow down" },
        {
          headers: { ...jsonHeaders, "retry-after": "1" },
        },
      );
    }
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(7);
  });

  it("exits 8 with a hint to start the service when nothing listens", async () => {
    const run = await runCli(["plans", "list"], {
      env: { RESELLER_BASE_URL: "http://127.0.0.1:9", RESELLER_TOKEN: "rsk_x_token_1234" },
    });
    expect(run.code).toBe(8);
    expect(run.stderr).toContain("Cannot reach the service at http://127.0.0.1:9");
    expect(run.stderr).toContain("reseller serve");
    // The address may come from the flag, the environment or the profile: all three are named.
    expect(run.stderr).toContain("--base-url, RESELLER_BASE_URL or the profile");
    expect(run.stderr).not.toContain("proxy");
  });

  it("says a proxy may be what is down when one is set", async () => {
    const run = await runCli(["plans", "list"], {
      env: {
        RESELLER_BASE_URL: "http://127.0.0.1:9",
        RESELLER_TOKEN: "rsk_x_token_1234",
        HTTP_PROXY: "http://127.0.0.1:9",
      },
    });
    expect(run.code).toBe(8);
    expect(run.stderr).toContain(
      "HTTP_PROXY is set: the request may have gone through a proxy that is not answering (NO_PROXY exempts a host).",
    );
  });

  it("logs each request with its status and request id under --debug, token masked", async () => {
    stubList();
    const run = await runCli(["plans", "list", "--debug"], { env: api.env, dispatcher: api.agent });
    expect(run.stderr).toMatch(
      /\[debug\] GET http:\/\/api\.reseller\.test\/api\/v1\/plans -> 200 in \d+ ms \(req_test\) \[token rsk_…0000\]/,
    );
    expect(run.stderr).not.toContain("rsk_test_token_0000");
  });

  it("hides a password in the base URL in --debug lines and messages", async () => {
    stubList();
    const run = await runCli(["plans", "list", "--debug"], {
      env: { ...api.env, RESELLER_BASE_URL: "http://ops:pwSECRET@api.reseller.test" },
      dispatcher: api.agent,
    });
    expect(run.stderr).toContain("[debug] GET http://ops:***@api.reseller.test/api/v1/plans");
    expect(run.stderr).not.toContain("pwSECRET");
  });
});
