import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importBodyLimitBytes } from "../../src/service/body-limits.js";
import { dashboardSignInLink } from "../../src/service/routes/dashboard.js";
import { adminToken, startTestApp, type TestApp } from "../helpers/test-app.js";

/** The session cookie's `name=value` from a Set-Cookie answer. */
function cookieOf(response: LightMyRequestResponse): string {
  const header = String(response.headers["set-cookie"] ?? "");
  return header.split(";")[0] ?? "";
}

describe("the dashboard's sign-in, session and API proxy", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const signIn = (token: string) =>
    t.app.inject({ method: "POST", url: "/dashboard/session", payload: { token } });

  it("serves the page with a strict Content-Security-Policy and its libraries from the package", async () => {
    const page = await t.app.inject({ method: "GET", url: "/dashboard" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(page.body).toContain('<script type="importmap">');
    for (const file of ["preact.js", "preact-hooks.js", "htm.js", "uplot.js", "uplot.css"]) {
      const response = await t.app.inject({ method: "GET", url: `/dashboard/vendor/${file}` });
      expect(response.statusCode, file).toBe(200);
    }
    const app = await t.app.inject({ method: "GET", url: "/dashboard/assets/app.js" });
    expect(app.headers["content-type"]).toContain("text/javascript");
  });

  it("names an empty data: icon that its policy allows, so a browser asks for no /favicon.ico", async () => {
    const page = await t.app.inject({ method: "GET", url: "/dashboard" });
    expect(page.body).toContain('<link rel="icon" href="data:,">');
    expect(page.headers["content-security-policy"]).toMatch(/img-src [^;]*data:/);
  });

  it("serves no file outside its own folder", async () => {
    for (const url of [
      "/dashboard/assets/..%2f..%2f..%2fpackage.json",
      "/dashboard/assets/nope.js",
      "/dashboard/vendor/..%2fpackage.json",
      "/dashboard/vendor/constructor",
      "/dashboard/vendor/toString",
    ]) {
      expect((await t.app.inject({ method: "GET", url })).statusCode, url).toBe(404);
    }
  });

  it("exchanges a reseller token for an HttpOnly, SameSite=Strict session cookie", async () => {
    const response = await signIn(adminToken);
    expect(response.statusCode).toBe(204);
    const header = String(response.headers["set-cookie"]);
    expect(header).toMatch(/^reseller_dashboard=[\w-]{40,};/);
    expect(header).toContain("HttpOnly");
    expect(header).toContain("SameSite=Strict");
    expect(header).toContain("Path=/dashboard");
    expect(header).not.toContain(adminToken);
  });

  it("marks the cookie Secure when the public URL is HTTPS, though a proxy ending TLS forwards plain HTTP", async () => {
    const response = await signIn(adminToken);
    expect(response.statusCode).toBe(204);
    expect(String(response.headers["set-cookie"])).toMatch(/; Secure(;|$)/);
    const plain = await startTestApp({ publicUrl: "http://127.0.0.1:8420" });
    try {
      const local = await plain.app.inject({
        method: "POST",
        url: "/dashboard/session",
        payload: { token: adminToken },
      });
      expect(local.statusCode).toBe(204);
      expect(String(local.headers["set-cookie"])).not.toContain("Secure");
    } finally {
      await plain.close();
    }
  });

  it("counts sign-in attempts against the client address's rate limit, so tokens cannot be guessed at full speed", async () => {
    const limited = await startTestApp({ rateLimit: { max: 3, windowMs: 60_000 } });
    try {
      const attempt = (token: string) =>
        limited.app.inject({ method: "POST", url: "/dashboard/session", payload: { token } });
      for (let i = 0; i < 3; i++) expect((await attempt(`rsk_guess_${i}`)).statusCode).toBe(401);
      const refused = await attempt(adminToken);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error_code).toBe("rate_limited");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.headers["set-cookie"]).toBeUndefined();
    } finally {
      await limited.close();
    }
  });

  it("refuses a sign-in body larger than a token could need with 413, before reading it", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/dashboard/session",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ token: "x".repeat(20_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error_code).toBe("payload_too_large");
  });

  it("refuses unknown tokens and workspace tokens", async () => {
    expect((await signIn("rsk_unknown")).statusCode).toBe(401);
    const ws = await t.createWorkspace();
    const workspaceToken = await t.tokenWith(["workspaces:read"], ws);
    const refused = await signIn(workspaceToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error_code: "unauthenticated" });
  });

  it("answers the public API through /dashboard/api with the session's token", async () => {
    const ws = await t.createWorkspace();
    const cookie = cookieOf(await signIn(adminToken));
    const through = await t.app.inject({
      method: "GET",
      url: `/dashboard/api/v1/workspaces/${ws}`,
      headers: { cookie },
    });
    const direct = await t.request("GET", `/api/v1/workspaces/${ws}`);
    expect(through.statusCode).toBe(200);
    expect(through.json()).toEqual(direct.json());
    expect(through.headers["ratelimit-limit"]).toBeDefined();
  });

  it("answers a body sent through the proxy without a session with 401 before reading it", async () => {
    // A body announced past the limit would be a 413 if it were read: it is refused unread.
    const anonymous = await t.app.inject({
      method: "POST",
      url: "/dashboard/api/v1/workspaces",
      headers: {
        "content-type": "application/json",
        "content-length": String(importBodyLimitBytes + 1),
        "x-reseller-dashboard": "1",
      },
      payload: "{}",
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error_code).toBe("unauthenticated");
    const signOut = await t.app.inject({
      method: "POST",
      url: "/dashboard/sign-out",
      headers: { "content-type": "application/json", "x-reseller-dashboard": "1" },
      payload: JSON.stringify({ filler: "x".repeat(4096) }),
    });
    expect(signOut.statusCode).toBe(413);
  });

  it("answers 401 through the proxy without a session, and refuses writes without its header", async () => {
    const anonymous = await t.app.inject({ method: "GET", url: "/dashboard/api/v1/workspaces" });
    expect(anonymous.statusCode).toBe(401);
    const cookie = cookieOf(await signIn(adminToken));
    const forged = await t.app.inject({
      method: "POST",
      url: "/dashboard/api/v1/sandbox/inbound",
      headers: { cookie, "content-type": "application/json" },
      payload: { workspace_id: "ws_x", from: "+4915112345678", text: "STOP" },
    });
    expect(forged.statusCode).toBe(401);
    const sent = await t.app.inject({
      method: "POST",
      url: "/dashboard/api/v1/sandbox/inbound",
      headers: { cookie, "content-type": "application/json", "x-reseller-dashboard": "1" },
      payload: { workspace_id: "ws_x", from: "+4915112345678", text: "STOP" },
    });
    // The API's own answer, passed on: that workspace does not exist.
    expect(sent.statusCode).toBe(404);
    expect(sent.json()).toMatchObject({ error_code: "not_found" });
  });

  it("keeps proxied calls inside /api: an encoded ../ or ? in the path is not followed", async () => {
    const cookie = cookieOf(await signIn(adminToken));
    for (const path of ["..%2Fdashboard%2Fsign-in", "v1%2F..%2F..%2Fdocs", "v1%2Fplans%3Fx%3D1"]) {
      const answer = await t.app.inject({
        method: "GET",
        url: `/dashboard/api/${path}`,
        headers: { cookie },
      });
      expect(answer.statusCode, path).toBe(404);
      expect(answer.json()).toMatchObject({ error_code: "not_found" });
    }
  });

  it("passes no event stream through the proxy, since its answer would never end and outlive the page", async () => {
    const cookie = cookieOf(await signIn(adminToken));
    for (const path of ["v1/events/stream", "v1/events/stream/", "v1//events/stream"]) {
      const answer = await t.app.inject({
        method: "GET",
        url: `/dashboard/api/${path}`,
        headers: { cookie },
      });
      expect(answer.statusCode, path).toBe(404);
      expect(answer.json().message).toContain("/api/v1/events/stream with a token");
    }
  });

  it("takes bodies of up to 1 MB through the proxy: a file goes to the API, which streams it", async () => {
    const ws = await t.createWorkspace();
    const cookie = cookieOf(await signIn(adminToken));
    const upload = await t.app.inject({
      method: "POST",
      url: `/dashboard/api/v1/workspaces/${ws}/contacts/import`,
      headers: { cookie, "content-type": "text/csv", "x-reseller-dashboard": "1" },
      payload: `phone\n${"+4915112345678\n".repeat(80_000)}`,
    });
    expect(upload.statusCode).toBe(413);
    expect(upload.json().error_code).toBe("payload_too_large");
  });

  it("signs in once with serve's link, which then is worthless", async () => {
    const link = new URL(await dashboardSignInLink(t.app, "http://127.0.0.1:8420"));
    expect(link.pathname).toBe("/dashboard/sign-in");
    // A link checker's HEAD leaves it unused, and signs nobody in.
    const head = await t.app.inject({ method: "HEAD", url: `${link.pathname}${link.search}` });
    expect(head.statusCode).toBe(200);
    expect(head.headers["set-cookie"]).toBeUndefined();
    const first = await t.app.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe("/dashboard");
    const cookie = cookieOf(first);
    const me = await t.app.inject({
      method: "GET",
      url: "/dashboard/api/v1/tokens/current",
      headers: { cookie },
    });
    expect(me.statusCode).toBe(200);
    const again = await t.app.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain("no longer valid");
  });

  it("lets a sign-in link expire after ten minutes unused", async () => {
    const link = new URL(await dashboardSignInLink(t.app, "http://127.0.0.1:8420"));
    t.clock.advance(10 * 60_000 + 1000);
    const late = await t.app.inject({ method: "GET", url: `${link.pathname}${link.search}` });
    expect(late.statusCode).toBe(400);
  });

  it("revokes the link's token at sign-out, and the session ends", async () => {
    const link = new URL(await dashboardSignInLink(t.app, "http://127.0.0.1:8420"));
    const cookie = cookieOf(
      await t.app.inject({ method: "GET", url: `${link.pathname}${link.search}` }),
    );
    const tokens = await t.request("GET", "/api/v1/tokens");
    expect(tokens.body).toContain("Dashboard sign-in link");
    const out = await t.app.inject({
      method: "POST",
      url: "/dashboard/sign-out",
      headers: { cookie, "x-reseller-dashboard": "1" },
    });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    const after = await t.app.inject({
      method: "GET",
      url: "/dashboard/api/v1/workspaces",
      headers: { cookie },
    });
    expect(after.statusCode).toBe(401);
    // The token list shows live tokens only: the link's is gone.
    expect((await t.request("GET", "/api/v1/tokens")).body).not.toContain("Dashboard sign-in link");
  });

  it("ends a session after twelve hours", async () => {
    const cookie = cookieOf(await signIn(adminToken));
    t.clock.advance(12 * 3_600_000 + 1000);
    const late = await t.app.inject({
      method: "GET",
      url: "/dashboard/api/v1/workspaces",
      headers: { cookie },
    });
    expect(late.statusCode).toBe(401);
  });

  it("streams a campaign as Server-Sent Events, passing the API's error on as a problem event", async () => {
    const ws = await t.createWorkspace();
    const cookie = cookieOf(await signIn(adminToken));
    const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const path = `/dashboard/streams/workspaces/${ws}/campaigns/cmp_missing`;
    expect((await fetch(`${url}${path}`)).status).toBe(401);
    const response = await fetch(`${url}${path}`, { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    // The stream ends after the problem, so the whole body can be read.
    const body = await response.text();
    expect(body).toContain("retry: 2000");
    expect(body).toMatch(/event: problem\ndata: \{.*"error_code":"not_found"/);
  });

  it("keeps the dashboard's own routes out of the OpenAPI document", async () => {
    const document = (await t.request("GET", "/api/v1/openapi.json")).json() as {
      paths: Record<string, unknown>;
    };
    const paths = Object.keys(document.paths);
    expect(paths.some((path) => path.startsWith("/dashboard") || path === "/register")).toBe(false);
    expect(paths).toContain("/api/v1/jobs");
    expect(paths).toContain("/api/v1/outbox");
  });
});
