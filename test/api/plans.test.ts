import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanListResponse, PlanResponse } from "../../src/contract/plans.js";
import { readCatalogueFile } from "../../src/service/catalogue/catalogue-file.js";
import { publicUrl, startTestApp, type TestApp } from "../helpers/test-app.js";

describe("plan catalogue", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("lists public plans grouped under the billing periods that have any", async () => {
    const res = await t.request("GET", "/api/v1/plans");
    expect(res.statusCode).toBe(200);
    const body = PlanListResponse.parse(res.json());
    expect(body.status).toBe("success");
    expect(Object.keys(body.data)).toEqual(["monthly", "quarterly", "yearly"]);
    const all = Object.values(body.data).flat();
    expect(all.every((p) => p.is_public)).toBe(true);
    expect(all.map((p) => p.slug)).not.toContain("enterprise-custom");
  });

  it("gives every public plan a ready-to-use registration_url built from the public URL", async () => {
    const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
    const starter = body.data.monthly?.find((p) => p.slug === "starter-monthly");
    expect(starter?.registration_url).toBe(`${publicUrl}/register?plan=starter-monthly`);
  });

  it("describes the currency and all five billing periods with counts of visible plans", async () => {
    const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
    expect(body.meta.currency).toEqual({ code: "USD", name: "US Dollar", symbol: "$" });
    expect(body.meta.billing_periods.map((p) => [p.value, p.plan_count])).toEqual([
      ["monthly", 2],
      ["quarterly", 1],
      ["half_yearly", 0],
      ["yearly", 1],
      ["lifetime", 0],
    ]);
    const lifetime = body.meta.billing_periods.find((p) => p.value === "lifetime");
    expect(lifetime).toMatchObject({ is_recurring: false, months: null });
    expect(body.meta.billing_periods.every((p) => p.months !== 0)).toBe(true);
  });

  it("narrows the list to one billing period but keeps every period's count", async () => {
    const body = PlanListResponse.parse(
      (await t.request("GET", "/api/v1/plans?billing_period=yearly")).json(),
    );
    expect(Object.keys(body.data)).toEqual(["yearly"]);
    expect(body.meta.billing_periods.find((p) => p.value === "monthly")?.plan_count).toBe(2);
  });

  it("includes private plans, without a registration_url, when include_private is true", async () => {
    const body = PlanListResponse.parse(
      (await t.request("GET", "/api/v1/plans?include_private=true")).json(),
    );
    const enterprise = body.data.yearly?.find((p) => p.slug === "enterprise-custom");
    expect(enterprise).toMatchObject({ is_public: false, registration_url: null });
    expect(body.meta.billing_periods.find((p) => p.value === "yearly")?.plan_count).toBe(2);
  });

  it("reads include_private as clients write booleans: True, TRUE, 1 and 0 too", async () => {
    const yearly = async (value: string) =>
      PlanListResponse.parse(
        (await t.request("GET", `/api/v1/plans?include_private=${value}`)).json(),
      ).data.yearly?.map((p) => p.slug);
    for (const value of ["True", "TRUE", "1"]) {
      expect(await yearly(value)).toContain("enterprise-custom");
    }
    for (const value of ["False", "0"]) {
      expect(await yearly(value)).not.toContain("enterprise-custom");
    }
    // The OpenAPI document types it as interface.md does, for clients generated from it.
    const doc = (await t.request("GET", "/api/v1/openapi.json")).json();
    const parameter = doc.paths["/api/v1/plans"].get.parameters.find(
      (p: { name: string }) => p.name === "include_private",
    );
    expect(parameter.schema).toMatchObject({ type: "boolean", default: false });
    const refused = await t.request("GET", "/api/v1/plans?include_private=yes");
    expect(refused.statusCode).toBe(422);
    expect(refused.json().details[0]).toMatchObject({ field: "include_private" });
  });

  it("returns one plan by id, private ones too", async () => {
    const list = PlanListResponse.parse(
      (await t.request("GET", "/api/v1/plans?include_private=true")).json(),
    );
    const enterprise = list.data.yearly?.find((p) => p.slug === "enterprise-custom");
    const res = await t.request("GET", `/api/v1/plans/${enterprise?.id}`);
    expect(res.statusCode).toBe(200);
    const body = PlanResponse.parse(res.json());
    expect(body.data.slug).toBe("enterprise-custom");
    expect(body.data.features.find((f) => f.key === "contacts")?.value).toBe(-1);
    expect(body.meta.currency?.code).toBe("USD");
  });

  it("gives one plan the catalogue's meta as the default list shows it, whether the plan is public or private", async () => {
    const list = PlanListResponse.parse(
      (await t.request("GET", "/api/v1/plans?include_private=true")).json(),
    );
    const catalogue = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
    const enterprise = list.data.yearly?.find((p) => p.slug === "enterprise-custom");
    for (const id of [2, enterprise?.id]) {
      const one = PlanResponse.parse((await t.request("GET", `/api/v1/plans/${id}`)).json());
      expect(one.meta, `plan ${id}`).toEqual(catalogue.meta);
    }
  });

  it("marks boolean features with a null value and limits with a ceiling", async () => {
    const body = PlanResponse.parse((await t.request("GET", "/api/v1/plans/2")).json());
    expect(body.data.features).toContainEqual({
      key: "api_access",
      name: "API access",
      type: "boolean",
      value: null,
    });
    expect(body.data.features).toContainEqual({
      key: "contacts",
      name: "Contacts",
      type: "limit",
      value: 5000,
    });
  });

  it("sets trial_days only on the free plan", async () => {
    const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
    for (const plan of Object.values(body.data).flat()) {
      expect(plan.trial_days === null || plan.is_free).toBe(true);
    }
    expect(body.data.monthly?.find((p) => p.is_free)?.trial_days).toBe(14);
  });

  describe("errors", () => {
    it("refuses a request without a token with 401 unauthenticated", async () => {
      const res = await t.request("GET", "/api/v1/plans", { token: null });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        status: "error",
        error_code: "unauthenticated",
        message: "Missing bearer token: send 'Authorization: Bearer <token>'.",
      });
    });

    it("refuses an unknown token with 401 unauthenticated", async () => {
      const res = await t.request("GET", "/api/v1/plans", { token: "rsk_not_a_real_token" });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        error_code: "unauthenticated",
        message: "The token is invalid, revoked or expired, or its workspace is archived.",
      });
    });

    it("refuses a malformed Authorization header with 401 unauthenticated", async () => {
      const res = await t.request("GET", "/api/v1/plans", {
        token: null,
        headers: { authorization: "Basic abc" },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        error_code: "unauthenticated",
        message: "The Authorization header must be 'Bearer <token>'.",
      });
    });

    it("refuses a token without plans:read with 403 insufficient_scope naming the scope", async () => {
      const token = await t.tokenWith(["workspaces:read"]);
      const res = await t.request("GET", "/api/v1/plans", { token });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        status: "error",
        error_code: "insufficient_scope",
        message: "This endpoint needs the 'plans:read' scope, which the token does not have.",
      });
      const one = await t.request("GET", "/api/v1/plans/1", { token });
      expect(one.statusCode).toBe(403);
    });

    it("answers an unknown plan id with 404 not_found saying the plan was not found", async () => {
      for (const id of ["9999", "abc", "1.5", "-1", "2147483648", "99999999999"]) {
        const res = await t.request("GET", `/api/v1/plans/${id}`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({
          status: "error",
          error_code: "not_found",
          message: `Plan '${id}' was not found.`,
        });
      }
    });

    it("answers an unknown billing_period with 422 listing the accepted values", async () => {
      const res = await t.request("GET", "/api/v1/plans?billing_period=weekly");
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        status: "error",
        error_code: "invalid_billing_period",
        message:
          "Unknown billing_period 'weekly'; accepted values are monthly, quarterly, half_yearly, yearly, lifetime.",
      });
    });

    it("answers a repeated billing_period saying it takes one period, listing the accepted values", async () => {
      const res = await t.request(
        "GET",
        "/api/v1/plans?billing_period=monthly&billing_period=yearly",
      );
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        error_code: "invalid_billing_period",
        message:
          "billing_period takes one period; got 'monthly,yearly'; accepted values are monthly, quarterly, half_yearly, yearly, lifetime.",
      });
    });

    it("answers a non-boolean include_private with 422 naming the field", async () => {
      const res = await t.request("GET", "/api/v1/plans?include_private=yes");
      expect(res.statusCode).toBe(422);
      const body = res.json();
      expect(body.error_code).toBe("validation_failed");
      expect(body.details).toEqual([
        { field: "include_private", message: "expected true or false (or 1, 0)" },
      ]);
    });

    it("answers an unknown path with a JSON 404, never HTML", async () => {
      const res = await t.request("GET", "/api/v1/nothing-here");
      expect(res.statusCode).toBe(404);
      expect(res.headers["content-type"]).toMatch(/application\/json/);
      expect(res.json()).toEqual({
        status: "error",
        error_code: "not_found",
        message: "No endpoint GET /api/v1/nothing-here.",
      });
    });

    it("answers a wrong method with a JSON 405 and an Allow header", async () => {
      const res = await t.request("DELETE", "/api/v1/plans/1");
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe("GET, HEAD");
      expect(res.json()).toMatchObject({ error_code: "method_not_allowed" });
    });

    it("answers a malformed JSON body with 400 invalid_json", async () => {
      const res = await t.request("POST", "/api/v1/plans", {
        body: '{"broken":',
        headers: { "content-type": "application/json" },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        status: "error",
        error_code: "invalid_json",
        message: "The request body is not valid JSON.",
      });
    });
  });

  it("puts a request id on every response, errors included", async () => {
    const ok = await t.request("GET", "/api/v1/plans");
    const bad = await t.request("GET", "/api/v1/plans", { token: null });
    expect(ok.headers["x-request-id"]).toMatch(/^req_[0-9a-z]{26}$/);
    expect(bad.headers["x-request-id"]).toMatch(/^req_/);
    expect(ok.headers["x-request-id"]).not.toBe(bad.headers["x-request-id"]);
  });
});

describe("rate limiting per token", () => {
  it("answers 429 rate_limited with Retry-After once a token spends its budget", async () => {
    const t = await startTestApp({ rateLimit: { max: 3, windowMs: 60_000 } });
    try {
      const other = await t.tokenWith(["plans:read"]);
      const statuses: number[] = [];
      let last = await t.request("GET", "/api/v1/plans");
      expect(last.headers["ratelimit-limit"]).toBe("3");
      expect(last.headers["ratelimit-remaining"]).toBe("2");
      expect(last.headers["ratelimit-reset"]).toBeDefined();
      for (let i = 0; i < 3; i++) {
        last = await t.request("GET", "/api/v1/plans");
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(last.headers["retry-after"]).toMatch(/^\d+$/);
      expect(last.json()).toMatchObject({ status: "error", error_code: "rate_limited" });
      expect(last.json().message).toMatch(/^Rate limit of 3 requests exceeded; retry in /);
      // Another token of the same reseller has its own budget.
      expect((await t.request("GET", "/api/v1/plans", { token: other })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe("catalogue from a plans file", () => {
  const dir = mkdtempSync(join(tmpdir(), "reseller-plans-"));
  const file = join(dir, "plans.json");
  const catalogue = {
    currency: { code: "EUR", name: "Euro", symbol: "€" },
    plans: [
      { name: "Solo", slug: "solo", price: 9.5, billing_period: "monthly" },
      { name: "Forever", slug: "forever", price: 499, billing_period: "lifetime" },
    ],
  };

  it("serves exactly the file's plans on a fresh database, and loading it twice changes nothing", async () => {
    writeFileSync(file, JSON.stringify(catalogue));
    const t = await startTestApp({ plansFile: file });
    try {
      const { bootstrap } = await import("../../src/service/bootstrap.js");
      await bootstrap(t.database.db, t.clock, { catalogue: await readCatalogueFile(file) });
      const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
      expect(
        Object.values(body.data)
          .flat()
          .map((p) => [p.id, p.slug]),
      ).toEqual([
        [1, "solo"],
        [2, "forever"],
      ]);
      expect(body.meta.currency?.symbol).toBe("€");
      expect(body.data.lifetime?.[0]?.price).toBe(499);
    } finally {
      await t.close();
    }
  });

  it("takes slugs with underscores and a catalogue without a currency (meta.currency null)", async () => {
    writeFileSync(
      file,
      JSON.stringify({
        currency: null,
        plans: [{ name: "Pro", slug: "pro_monthly", price: 20, billing_period: "monthly" }],
      }),
    );
    const t = await startTestApp({ plansFile: file });
    try {
      const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
      expect(body.meta.currency).toBeNull();
      expect(body.data.monthly?.[0]?.registration_url).toMatch(/\/register\?plan=pro_monthly$/);
    } finally {
      await t.close();
    }
  });

  it("refuses a catalogue whose feature values do not fit their types, naming each", async () => {
    const features = [
      { key: "api", name: "API access", type: "boolean", value: 1 },
      { key: "contacts", name: "Contacts", type: "limit", value: null },
    ];
    writeFileSync(
      file,
      JSON.stringify({ ...catalogue, plans: [{ ...catalogue.plans[0], features }] }),
    );
    const error = await readCatalogueFile(file).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toContain("plans.0.features.0.value: is null for a boolean feature");
    expect(error).toContain("plans.0.features.1.value: is the ceiling of a limit feature");
  });

  it("keys the list by billing period in the periods' own order, whatever the plans' order", async () => {
    writeFileSync(
      file,
      JSON.stringify({
        ...catalogue,
        plans: [
          { name: "Forever", slug: "forever", price: 499, billing_period: "lifetime" },
          { name: "Annual", slug: "annual", price: 99, billing_period: "yearly" },
          { name: "Solo", slug: "solo", price: 9.5, billing_period: "monthly" },
        ],
      }),
    );
    const t = await startTestApp({ plansFile: file });
    try {
      const body = (await t.request("GET", "/api/v1/plans")).json();
      expect(Object.keys(body.data)).toEqual(["monthly", "yearly", "lifetime"]);
    } finally {
      await t.close();
    }
  });

  it("takes a plan priced 0 as free (trial days allowed) unless the file says is_free: false", async () => {
    writeFileSync(
      file,
      JSON.stringify({
        ...catalogue,
        plans: [
          { name: "Trial", slug: "trial", price: 0, billing_period: "monthly", trial_days: 14 },
          { name: "Beta", slug: "beta", price: 0, billing_period: "monthly", is_free: false },
          { name: "Ask us", slug: "ask-us", billing_period: "monthly" },
        ],
      }),
    );
    const t = await startTestApp({ plansFile: file });
    try {
      const body = PlanListResponse.parse((await t.request("GET", "/api/v1/plans")).json());
      expect(body.data.monthly?.map((p) => [p.slug, p.is_free, p.trial_days])).toEqual([
        ["trial", true, 14],
        ["beta", false, null],
        ["ask-us", false, null],
      ]);
    } finally {
      await t.close();
    }
  });

  it("rejects a catalogue whose plan sets trial_days without being free, naming the field", async () => {
    writeFileSync(
      file,
      JSON.stringify({
        ...catalogue,
        plans: [{ name: "Bad", slug: "bad", price: 5, billing_period: "monthly", trial_days: 7 }],
      }),
    );
    await expect(startTestApp({ plansFile: file })).rejects.toThrow(
      /plans\.0\.trial_days: trial_days is set only on a free plan/,
    );
    writeFileSync(
      file,
      JSON.stringify({
        ...catalogue,
        plans: [
          { name: "Long", slug: "long", price: 0, billing_period: "monthly", trial_days: 3e9 },
        ],
      }),
    );
    await expect(startTestApp({ plansFile: file })).rejects.toThrow(/plans\.0\.trial_days: /);
  });
});
