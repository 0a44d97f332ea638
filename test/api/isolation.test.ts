import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreatedTokenResponse } from "../../src/contract/tokens.js";
import { WorkspaceListResponse } from "../../src/contract/workspaces.js";
import { createReseller } from "../../src/service/domain/resellers.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** One reseller's workspaces are invisible to another: 404 everywhere, never 403. */
describe("isolation between resellers", () => {
  let t: TestApp;
  let otherToken: string;
  let workspaceId: string;
  let workspaceTokenId: string;

  beforeAll(async () => {
    t = await startTestApp();
    // The lead adds the `reseller admin resellers create` variant once the CLI exists.
    otherToken = (await createReseller(t.database.db, t.clock, { name: "Second reseller" })).token
      .secret;
    workspaceId = await t.createWorkspace({ name: "First's client" });
    const created = await t.request("POST", `/api/v1/workspaces/${workspaceId}/tokens`, {
      body: { name: "pricing", scopes: ["plans:read"] },
    });
    workspaceTokenId = CreatedTokenResponse.parse(created.json()).data.id;
  });
  afterAll(() => t.close());

  it("lists none of the other reseller's workspaces", async () => {
    await t.createWorkspace({ name: "Second's client" }, otherToken);
    const body = WorkspaceListResponse.parse(
      (await t.request("GET", "/api/v1/workspaces", { token: otherToken })).json(),
    );
    expect(body.data.map((w) => w.name)).toEqual(["Second's client"]);
    expect(body.meta.pagination.total).toBe(1);
  });

  const calls: [string, "GET" | "PATCH" | "POST" | "DELETE", () => string, unknown?][] = [
    ["get the workspace", "GET", () => `/api/v1/workspaces/${workspaceId}`],
    ["update it", "PATCH", () => `/api/v1/workspaces/${workspaceId}`, { status: "suspended" }],
    ["list its tokens", "GET", () => `/api/v1/workspaces/${workspaceId}/tokens`],
    [
      "create a token for it",
      "POST",
      () => `/api/v1/workspaces/${workspaceId}/tokens`,
      { name: "x", scopes: ["plans:read"] },
    ],
    [
      "revoke its token",
      "DELETE",
      () => `/api/v1/workspaces/${workspaceId}/tokens/${workspaceTokenId}`,
    ],
  ];
  for (const [what, method, url, body] of calls) {
    it(`answers 404 when another reseller tries to ${what}`, async () => {
      const res = await t.request(method, url(), { token: otherToken, body });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: "error", error_code: "not_found" });
      expect(res.json().message).not.toContain("reseller");
    });
  }

  it("answers 404 to another reseller for a workspace whose contacts its own reseller just listed", async () => {
    // The service remembers which reseller's workspaces a list has found (per reseller), and
    // the page itself while nothing changes: neither is shared with another caller.
    await t.request("GET", `/api/v1/workspaces/${workspaceId}/contacts`);
    const own = await t.request("GET", `/api/v1/workspaces/${workspaceId}/contacts`);
    expect(own.statusCode).toBe(200);
    const other = await t.request("GET", `/api/v1/workspaces/${workspaceId}/contacts`, {
      token: otherToken,
    });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ status: "error", error_code: "not_found" });
  });

  it("leaves the workspace and its token untouched after those attempts", async () => {
    const ws = (await t.request("GET", `/api/v1/workspaces/${workspaceId}`)).json();
    expect(ws.data.status).toBe("active");
    const tokens = (await t.request("GET", `/api/v1/workspaces/${workspaceId}/tokens`)).json();
    expect(tokens.data.map((tok: { id: string }) => tok.id)).toEqual([workspaceTokenId]);
  });
});
