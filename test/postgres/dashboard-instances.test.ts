import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { dashboardSignInLink } from "../../src/service/routes/dashboard.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";
import { adminToken, startTestApp, type TestApp } from "../helpers/test-app.js";

function cookieOf(answer: { headers: Record<string, unknown> }): string {
  return String(answer.headers["set-cookie"]).split(";")[0] ?? "";
}

describe("the dashboard behind a load balancer (two instances, one database)", () => {
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  let one: TestApp;
  let two: TestApp;
  beforeEach(async () => {
    target = await createTestDatabase();
    one = await startTestApp({ database: await openDatabase(target.url) });
    two = await startTestApp({ database: await openDatabase(target.url) });
  });
  afterEach(async () => {
    await one.close();
    await two.close();
    await target.drop();
  });

  it("keeps a browser signed in whichever instance answers, and signs it out everywhere", async () => {
    const signedIn = await one.app.inject({
      method: "POST",
      url: "/dashboard/session",
      payload: { token: adminToken },
    });
    expect(signedIn.statusCode).toBe(204);
    const cookie = cookieOf(signedIn);
    // The database holds neither the cookie nor the token in a usable form.
    const stored = await one.database.db.selectFrom("dashboard_sessions").selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(adminToken);
    expect(JSON.stringify(stored)).not.toContain(cookie.split("=")[1]);
    const onTwo = await two.app.inject({
      method: "GET",
      url: "/dashboard/api/v1/workspaces",
      headers: { cookie },
    });
    expect(onTwo.statusCode).toBe(200);
    const out = await two.app.inject({
      method: "POST",
      url: "/dashboard/sign-out",
      headers: { cookie, "x-reseller-dashboard": "1" },
    });
    expect(out.statusCode).toBe(204);
    const afterOut = await one.app.inject({
      method: "GET",
      url: "/dashboard/api/v1/workspaces",
      headers: { cookie },
    });
    expect(afterOut.statusCode).toBe(401);
  });

  it("takes serve's sign-in link on any instance, once", async () => {
    const link = new URL(await dashboardSignInLink(one.app, "http://127.0.0.1:8420"));
    const url = `${link.pathname}${link.search}`;
    const [a, b] = await Promise.all([
      two.app.inject({ method: "GET", url }),
      one.app.inject({ method: "GET", url }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([303, 400]);
  });

  it("counts public sign-ups per address across instances", async () => {
    const post = (app: TestApp, i: number) =>
      app.app.inject({
        method: "POST",
        url: "/register",
        remoteAddress: "203.0.113.7",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: `plan=starter-monthly&business_name=Shop+${i}&contact_email=s${i}%40shop.test`,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(i % 2 === 0 ? one : two, i)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });
});
