import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CreatedTokenResponse,
  TokenListResponse,
  TokenResponse,
} from "../../src/contract/tokens.js";
import { WorkspaceListResponse } from "../../src/contract/workspaces.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

describe("tokens", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  async function createResellerToken(body: unknown, token?: string) {
    return t.request("POST", "/api/v1/tokens", { body, ...(token ? { token } : {}) });
  }

  describe("reseller tokens", () => {
    it("shows a new token's secret once, and lists it without the secret", async () => {
      const res = await createResellerToken({ name: "ci", scopes: ["workspaces:read"] });
      expect(res.statusCode).toBe(201);
      const created = CreatedTokenResponse.parse(res.json()).data;
      expect(created.token).toMatch(/^rsk_/);
      expect(created).toMatchObject({
        name: "ci",
        kind: "reseller",
        workspace_id: null,
        scopes: ["workspaces:read"],
        created_at: "2026-11-22T09:30:00Z",
        revoked_at: null,
      });
      expect(created.token_hint).toBe(`rsk_…${created.token.slice(-4)}`);

      const list = await t.request("GET", "/api/v1/tokens");
      expect(list.statusCode).toBe(200);
      const listed = TokenListResponse.parse(list.json());
      expect(listed.data.map((tok) => tok.id)).toContain(created.id);
      expect(list.body).not.toContain(created.token);
      expect(listed.meta.pagination).toMatchObject({ page: 1, per_page: 20, total: 2 });
    });

    it("creates a token that works with exactly its scopes", async () => {
      const created = CreatedTokenResponse.parse(
        (await createResellerToken({ name: "reader", scopes: ["workspaces:read"] })).json(),
      ).data;
      const read = await t.request("GET", "/api/v1/workspaces", { token: created.token });
      expect(read.statusCode).toBe(200);
      const write = await t.request("POST", "/api/v1/workspaces", {
        token: created.token,
        body: { name: "Acme", contact_email: "owner@acme.test" },
      });
      expect(write.statusCode).toBe(403);
    });

    it("refuses to grant scopes the creating token lacks", async () => {
      const limited = await t.tokenWith(["workspaces:read", "workspaces:write"]);
      const res = await createResellerToken(
        { name: "escalate", scopes: ["workspaces:read", "contacts:write", "plans:read"] },
        limited,
      );
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        error_code: "validation_failed",
        details: [{ field: "scopes" }],
      });
      expect(res.json().message).toContain("contacts:write, plans:read");
    });

    it("refuses unknown scopes and an empty name, naming each field", async () => {
      const res = await createResellerToken({ name: "", scopes: ["everything"] });
      expect(res.statusCode).toBe(422);
      const fields = (res.json() as { details: { field: string }[] }).details.map((d) => d.field);
      expect(fields.sort()).toEqual(["name", "scopes.0"]);
    });

    it("revokes a token: it answers 401 from then on and leaves the list", async () => {
      const created = CreatedTokenResponse.parse(
        (await createResellerToken({ name: "old", scopes: ["workspaces:read"] })).json(),
      ).data;
      t.clock.advance(1000);
      const res = await t.request("DELETE", `/api/v1/tokens/${created.id}`);
      expect(res.statusCode).toBe(200);
      expect(TokenResponse.parse(res.json()).data.revoked_at).toBe("2026-11-22T09:30:01Z");
      const after = await t.request("GET", "/api/v1/workspaces", { token: created.token });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ error_code: "unauthenticated" });
      const listed = TokenListResponse.parse((await t.request("GET", "/api/v1/tokens")).json());
      expect(listed.data.map((tok) => tok.id)).not.toContain(created.id);
      const again = await t.request("DELETE", `/api/v1/tokens/${created.id}`);
      expect(again.json().data.revoked_at).toBe("2026-11-22T09:30:01Z");
    });

    it("lets a token revoke only tokens whose scopes it holds, so a lesser token cannot lock out the full one", async () => {
      const full = (await t.request("GET", "/api/v1/tokens/current")).json().data.id;
      const lesser = await t.tokenWith(["workspaces:read", "workspaces:write"]);
      const refused = await t.request("DELETE", `/api/v1/tokens/${full}`, { token: lesser });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ error_code: "insufficient_scope" });
      expect(refused.json().message).toContain("contacts:write");
      expect((await t.request("GET", "/api/v1/workspaces")).statusCode).toBe(200);

      const peer = CreatedTokenResponse.parse(
        (await createResellerToken({ name: "peer", scopes: ["workspaces:write"] }, lesser)).json(),
      ).data;
      const revoked = await t.request("DELETE", `/api/v1/tokens/${peer.id}`, { token: lesser });
      expect(revoked.statusCode).toBe(200);
    });

    it("creates a token that expires: it works until expires_at, then answers 401", async () => {
      const res = await createResellerToken({
        name: "contractor",
        scopes: ["workspaces:read"],
        expires_at: "2026-11-22T10:30:00.500+00:00",
      });
      expect(res.statusCode, res.body).toBe(201);
      const created = CreatedTokenResponse.parse(res.json()).data;
      expect(created.expires_at).toBe("2026-11-22T10:30:00Z");
      const listed = TokenListResponse.parse((await t.request("GET", "/api/v1/tokens")).json());
      expect(listed.data.find((tok) => tok.id === created.id)?.expires_at).toBe(
        "2026-11-22T10:30:00Z",
      );
      const read = () => t.request("GET", "/api/v1/workspaces", { token: created.token });
      expect((await read()).statusCode).toBe(200);
      t.clock.advance(60 * 60 * 1000);
      const after = await read();
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ error_code: "unauthenticated" });
    });

    it("never lets a token outlive the expiring token that made it", async () => {
      const parent = CreatedTokenResponse.parse(
        (
          await createResellerToken({
            name: "contractor",
            scopes: ["workspaces:read", "workspaces:write"],
            expires_at: "2026-11-22T10:30:00Z",
          })
        ).json(),
      ).data;
      const child = (expires_at?: string) =>
        createResellerToken(
          { name: "child", scopes: ["workspaces:read"], ...(expires_at ? { expires_at } : {}) },
          parent.token,
        );
      const inherited = await child();
      expect(inherited.statusCode).toBe(201);
      expect(inherited.json().data.expires_at).toBe("2026-11-22T10:30:00Z");
      const later = await child("2026-11-22T11:00:00Z");
      expect(later.statusCode).toBe(422);
      expect(later.json().details).toEqual([
        {
          field: "expires_at",
          message:
            "must be no later than the expiry of the token creating it (2026-11-22T10:30:00Z); a token cannot outlive the token that made it",
        },
      ]);
      const sooner = await child("2026-11-22T10:00:00Z");
      expect(sooner.json().data.expires_at).toBe("2026-11-22T10:00:00Z");
      const wsId = await t.createWorkspace();
      const workspaceChild = await t.request("POST", `/api/v1/workspaces/${wsId}/tokens`, {
        token: parent.token,
        body: { name: "pricing", scopes: ["workspaces:read"] },
      });
      expect(workspaceChild.json().data.expires_at).toBe("2026-11-22T10:30:00Z");
    });

    it("refuses an expiry that has passed or is not a time, naming expires_at", async () => {
      for (const expires_at of ["2026-11-22T09:00:00Z", "next week", "2026-12-01T09:00:00"]) {
        const res = await createResellerToken({ name: "x", scopes: ["plans:read"], expires_at });
        expect(res.statusCode, expires_at).toBe(422);
        expect(res.json().details[0].field).toBe("expires_at");
      }
    });

    it("answers 404 for a token that is not the reseller's own reseller token", async () => {
      const other = await t.otherReseller();
      const othersToken = CreatedTokenResponse.parse(
        (await createResellerToken({ name: "theirs", scopes: ["plans:read"] }, other)).json(),
      ).data;
      const wsId = await t.createWorkspace();
      const wsToken = CreatedTokenResponse.parse(
        (
          await t.request("POST", `/api/v1/workspaces/${wsId}/tokens`, {
            body: { name: "site", scopes: ["plans:read"] },
          })
        ).json(),
      ).data;
      for (const id of [othersToken.id, wsToken.id, "tok_unknown"]) {
        const res = await t.request("DELETE", `/api/v1/tokens/${id}`);
        expect(res.statusCode).toBe(404);
      }
      expect(
        (await t.request("GET", "/api/v1/plans", { token: othersToken.token })).statusCode,
      ).toBe(200);
    });

    it("needs workspaces:write to create or revoke and workspaces:read to list", async () => {
      const plansOnly = await t.tokenWith(["plans:read"]);
      const create = await createResellerToken({ name: "x", scopes: ["plans:read"] }, plansOnly);
      expect(create.statusCode).toBe(403);
      expect(create.json().message).toContain("workspaces:write");
      const list = await t.request("GET", "/api/v1/tokens", { token: plansOnly });
      expect(list.json().message).toContain("workspaces:read");
      const revoke = await t.request("DELETE", "/api/v1/tokens/tok_x", { token: plansOnly });
      expect(revoke.statusCode).toBe(403);
    });

    it("are never managed by a workspace token, whatever its scopes", async () => {
      const wsId = await t.createWorkspace();
      const wsToken = await t.tokenWith(["workspaces:read", "workspaces:write"], wsId);
      const create = await createResellerToken({ name: "x", scopes: ["plans:read"] }, wsToken);
      expect(create.statusCode).toBe(403);
      expect(create.json()).toMatchObject({ error_code: "insufficient_scope" });
      expect(create.json().message).toContain("reseller token");
      expect((await t.request("GET", "/api/v1/tokens", { token: wsToken })).statusCode).toBe(403);
      const revoke = await t.request("DELETE", "/api/v1/tokens/tok_x", { token: wsToken });
      expect(revoke.statusCode).toBe(403);
    });
    it("refuses a workspace token what only a reseller token may do before reading the request (403, not 422)", async () => {
      const wsId = await t.createWorkspace();
      const all = [
        "workspaces:read",
        "workspaces:write",
        "webhooks:read",
        "webhooks:write",
      ] as const;
      const wsToken = await t.tokenWith([...all], wsId);
      const attempts = [
        ["POST", "/api/v1/tokens", { name: 5 }],
        ["POST", "/api/v1/workspaces", { name: "x" }],
        ["GET", "/api/v1/usage?month=2026-13", undefined],
        ["POST", "/api/v1/webhook-endpoints", { url: 5 }],
        ["GET", "/api/v1/webhook-endpoints?per_page=0", undefined],
        ["POST", "/api/v1/events/evt_nope/redeliver", { endpoint_id: 5 }],
      ] as const;
      for (const [method, url, body] of attempts) {
        const res = await t.request(method, url, { token: wsToken, ...(body ? { body } : {}) });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().message, `${method} ${url}`).toContain("A workspace token cannot");
      }
    });
  });

  describe("workspace tokens", () => {
    async function createWorkspaceToken(workspaceId: string, body: unknown, token?: string) {
      return t.request("POST", `/api/v1/workspaces/${workspaceId}/tokens`, {
        body,
        ...(token ? { token } : {}),
      });
    }

    it("creates a plans:read token for a pricing page that reads the catalogue and nothing else", async () => {
      const wsId = await t.createWorkspace();
      const res = await createWorkspaceToken(wsId, { name: "pricing", scopes: ["plans:read"] });
      expect(res.statusCode).toBe(201);
      const created = CreatedTokenResponse.parse(res.json()).data;
      expect(created.token).toMatch(/^wsk_/);
      expect(created).toMatchObject({ kind: "workspace", workspace_id: wsId });
      expect((await t.request("GET", "/api/v1/plans", { token: created.token })).statusCode).toBe(
        200,
      );
      const workspaces = await t.request("GET", "/api/v1/workspaces", { token: created.token });
      expect(workspaces.statusCode).toBe(403);
      expect(workspaces.json().message).toContain("workspaces:read");
    });

    it("lists and revokes a workspace's tokens", async () => {
      const wsId = await t.createWorkspace();
      const created = CreatedTokenResponse.parse(
        (await createWorkspaceToken(wsId, { name: "pricing", scopes: ["plans:read"] })).json(),
      ).data;
      const listed = TokenListResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${wsId}/tokens`)).json(),
      );
      expect(listed.data.map((tok) => tok.id)).toEqual([created.id]);
      const revoked = await t.request("DELETE", `/api/v1/workspaces/${wsId}/tokens/${created.id}`);
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json().data.revoked_at).not.toBeNull();
      expect((await t.request("GET", "/api/v1/plans", { token: created.token })).statusCode).toBe(
        401,
      );
      const after = TokenListResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${wsId}/tokens`)).json(),
      );
      expect(after.data).toEqual([]);
    });

    it("is revoked only by a token holding every scope it holds", async () => {
      const wsId = await t.createWorkspace();
      const wide = CreatedTokenResponse.parse(
        (
          await createWorkspaceToken(wsId, {
            name: "sync",
            scopes: ["contacts:read", "contacts:write", "workspaces:write"],
          })
        ).json(),
      ).data;
      const narrow = await t.tokenWith(["workspaces:write"], wsId);
      const path = `/api/v1/workspaces/${wsId}/tokens/${wide.id}`;
      const refused = await t.request("DELETE", path, { token: narrow });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().message).toContain("contacts:read, contacts:write");
      expect((await t.request("DELETE", path, { token: wide.token })).statusCode).toBe(200);
    });

    it("holds at most 100 tokens that work per workspace, so a client cannot multiply its rate limit; a revoked one frees its place", async () => {
      const wsId = await t.createWorkspace();
      let last = "";
      for (let i = 0; i < 100; i++) {
        const res = await createWorkspaceToken(wsId, { name: `t${i}`, scopes: ["plans:read"] });
        expect(res.statusCode).toBe(201);
        last = CreatedTokenResponse.parse(res.json()).data.id;
      }
      const refused = await createWorkspaceToken(wsId, {
        name: "one more",
        scopes: ["plans:read"],
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({
        error_code: "token_limit_reached",
        details: [{ field: "tokens", limit: 100, used: 100 }],
      });
      expect(refused.json().message).toContain(`reseller workspaces tokens list -w ${wsId}`);
      await t.request("DELETE", `/api/v1/workspaces/${wsId}/tokens/${last}`);
      const again = await createWorkspaceToken(wsId, { name: "one more", scopes: ["plans:read"] });
      expect(again.statusCode).toBe(201);
      // Another workspace's tokens are counted apart.
      const other = await t.createWorkspace();
      const elsewhere = await createWorkspaceToken(other, { name: "t", scopes: ["plans:read"] });
      expect(elsewhere.statusCode).toBe(201);
    });

    it("reaches only its own workspace", async () => {
      const own = await t.createWorkspace({ name: "Own" });
      const other = await t.createWorkspace({ name: "Other" });
      const wsToken = await t.tokenWith(["workspaces:read", "workspaces:write"], own);

      const list = WorkspaceListResponse.parse(
        (await t.request("GET", "/api/v1/workspaces", { token: wsToken })).json(),
      );
      expect(list.data.map((w) => w.id)).toEqual([own]);
      expect(list.meta.pagination.total).toBe(1);
      expect(
        (await t.request("GET", `/api/v1/workspaces/${own}`, { token: wsToken })).statusCode,
      ).toBe(200);

      const otherCalls: [
        method: "GET" | "PATCH" | "POST" | "DELETE",
        url: string,
        body?: unknown,
      ][] = [
        ["GET", `/api/v1/workspaces/${other}`],
        ["PATCH", `/api/v1/workspaces/${other}`, { name: "Taken over" }],
        ["GET", `/api/v1/workspaces/${other}/tokens`],
        ["POST", `/api/v1/workspaces/${other}/tokens`, { name: "x", scopes: ["plans:read"] }],
        ["DELETE", `/api/v1/workspaces/${other}/tokens/tok_x`],
      ];
      for (const [method, url, body] of otherCalls) {
        const res = await t.request(method, url, { token: wsToken, body });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
    });

    it("never creates workspaces", async () => {
      const own = await t.createWorkspace();
      const wsToken = await t.tokenWith(["workspaces:write"], own);
      const res = await t.request("POST", "/api/v1/workspaces", {
        token: wsToken,
        body: { name: "Sneaky", contact_email: "x@y.test" },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error_code: "insufficient_scope" });
    });

    it("cannot hand out a scope it lacks", async () => {
      const own = await t.createWorkspace();
      const wsToken = await t.tokenWith(["workspaces:write", "plans:read"], own);
      const res = await createWorkspaceToken(
        own,
        { name: "more", scopes: ["plans:read", "contacts:read"] },
        wsToken,
      );
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ details: [{ field: "scopes" }] });
      const ok = await createWorkspaceToken(own, { name: "same", scopes: ["plans:read"] }, wsToken);
      expect(ok.statusCode).toBe(201);
    });

    it("answers 404 when revoking a token through another workspace's path", async () => {
      const a = await t.createWorkspace({ name: "A" });
      const b = await t.createWorkspace({ name: "B" });
      const tokenOfA = CreatedTokenResponse.parse(
        (await createWorkspaceToken(a, { name: "site", scopes: ["plans:read"] })).json(),
      ).data;
      const res = await t.request("DELETE", `/api/v1/workspaces/${b}/tokens/${tokenOfA.id}`);
      expect(res.statusCode).toBe(404);
      expect((await t.request("GET", "/api/v1/plans", { token: tokenOfA.token })).statusCode).toBe(
        200,
      );
    });
  });
});
