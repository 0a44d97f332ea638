import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { defaultRateLimit, type RateLimit } from "../../src/service/config.js";
import { tokenRecheckMs } from "../../src/service/plugins/authentication.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * What makes an instance a good member of a fleet behind a load balancer: health checks, token
 * state read from the database rather than remembered for long, and rate limits on every answer.
 */
describe("health checks", () => {
  let t: TestApp;
  afterEach(() => t.close());

  it("answers /healthz and /readyz without a token", async () => {
    t = await startTestApp();
    const live = await t.request("GET", "/healthz", { token: null });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: "success", data: { status: "ok" }, meta: {} });
    const ready = await t.request("GET", "/readyz", { token: null });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data).toMatchObject({ status: "ready", database: "reachable" });
    expect(ready.json().data.migrations.applied).toBeGreaterThanOrEqual(10);
  });

  it("is not ready while the database lacks a migration this version knows", async () => {
    t = await startTestApp();
    await sql`DELETE FROM kysely_migration WHERE name = ${"0010-instances-and-rate-limits"}`.execute(
      t.database.db,
    );
    const ready = await t.request("GET", "/readyz", { token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ error_code: "service_unavailable" });
    expect(ready.json().message).toContain("0010-instances-and-rate-limits");
    // Alive all the same: a restart would not help, a migration would.
    expect((await t.request("GET", "/healthz", { token: null })).statusCode).toBe(200);
  });

  it("lists both checks in the OpenAPI document", async () => {
    t = await startTestApp();
    const doc = (await t.request("GET", "/api/v1/openapi.json", { token: null })).json();
    expect(doc.paths["/healthz"].get.operationId).toBe("getLiveness");
    expect(doc.paths["/readyz"].get.operationId).toBe("getReadiness");
    expect(doc.paths["/readyz"].get.security ?? []).toEqual([]);
  });
});

describe("tokens as several instances see them", () => {
  let t: TestApp;
  afterEach(() => t.close());

  it("refuses a token revoked behind its back (by another instance) within a second", async () => {
    t = await startTestApp();
    const token = await t.tokenWith(["plans:read"]);
    expect((await t.request("GET", "/api/v1/plans", { token })).statusCode).toBe(200);
    // Another instance revokes it: only the database knows.
    await t.database.db
      .updateTable("tokens")
      .set({ revoked_at: "2026-11-22T09:30:00Z" })
      .where("revoked_at", "is", null)
      .where("scopes", "=", JSON.stringify(["plans:read"]))
      .execute();
    const revokedAt = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - revokedAt < 2000) {
      status = (await t.request("GET", "/api/v1/plans", { token })).statusCode;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).toBe(401);
    expect(performance.now() - revokedAt).toBeLessThan(1000);
    // The bound leaves most of the second to the request itself.
    expect(tokenRecheckMs).toBeLessThanOrEqual(500);
  });

  it("records last_used_at on use, at most once a minute", async () => {
    t = await startTestApp();
    const token = await t.tokenWith(["plans:read", "workspaces:read"]);
    const lastUsed = async () =>
      (
        await t.database.db
          .selectFrom("tokens")
          .select("last_used_at")
          .where("token_hint", "=", `${token.slice(0, 4)}…${token.slice(-4)}`)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    const current = await t.request("GET", "/api/v1/tokens/current", { token });
    expect(current.statusCode).toBe(200);
    expect(await lastUsed()).toBe("2026-11-22T09:30:00Z");
    t.clock.advance(30_000);
    await t.request("GET", "/api/v1/plans", { token });
    expect(await lastUsed()).toBe("2026-11-22T09:30:00Z");
    t.clock.advance(31_000);
    await t.request("GET", "/api/v1/plans", { token });
    expect(await lastUsed()).toBe("2026-11-22T09:31:01Z");
    // A refused request is no use: it changes nothing.
    t.clock.advance(120_000);
    expect((await t.request("GET", "/api/v1/workspaces/ws_nope", { token })).statusCode).toBe(404);
    expect(await lastUsed()).toBe("2026-11-22T09:31:01Z");
  });
});

describe("rate limit headers and unauthenticated budgets", () => {
  let t: TestApp;
  afterEach(() => t.close());
  const limit: RateLimit = { ...defaultRateLimit, max: 5 };

  it("puts the RateLimit headers on a 401 and on an unknown route's 404", async () => {
    t = await startTestApp({ rateLimit: limit });
    for (const answer of [
      await t.request("GET", "/api/v1/workspaces", { token: null }),
      await t.request("GET", "/api/v1/workspaces", { token: "rsk_not_a_real_token" }),
      await t.request("GET", "/api/v1/nothing-here", { token: null }),
    ]) {
      expect([401, 404]).toContain(answer.statusCode);
      expect(answer.headers["ratelimit-limit"]).toBe("5");
      expect(answer.headers["ratelimit-remaining"]).toMatch(/^\d+$/);
      expect(answer.headers["ratelimit-reset"]).toMatch(/^\d+$/);
    }
  });

  it("limits guesses with bad or missing tokens per client address, not per guess", async () => {
    t = await startTestApp({ rateLimit: limit });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const answer = await t.request("GET", "/api/v1/workspaces", {
        token: i % 2 ? `rsk_guess_number_${i}` : null,
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // A valid token has its own budget, untouched by the guesses from its address.
    expect((await t.request("GET", "/api/v1/plans")).statusCode).toBe(200);
  });

  it("counts guesses from one IPv6 /64 network as one address, so a client cannot take a fresh address per guess", async () => {
    t = await startTestApp({ rateLimit: limit });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await t.app.inject({
        method: "GET",
        url: "/api/v1/workspaces",
        remoteAddress: `2001:db8:7:7::${i + 1}`,
        headers: { authorization: `Bearer rsk_guess_number_${i}` },
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const otherNetwork = await t.app.inject({
      method: "GET",
      url: "/api/v1/workspaces",
      remoteAddress: "2001:db8:7:8::1",
    });
    expect(otherNetwork.statusCode).toBe(401);
  });

  it("leaves health checks and the API reference out of the budget", async () => {
    t = await startTestApp({ rateLimit: limit });
    for (let i = 0; i < 8; i++) {
      const answer = await t.request("GET", "/healthz", { token: null });
      expect(answer.statusCode).toBe(200);
      // Every response carries the headers: here the address's whole budget, untouched.
      expect(answer.headers["ratelimit-remaining"]).toBe(answer.headers["ratelimit-limit"]);
    }
  });
});
