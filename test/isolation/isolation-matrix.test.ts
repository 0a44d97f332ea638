import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCodes } from "../../src/contract/errors.js";
import { type Scope, scopes } from "../../src/contract/scopes.js";
import { type ApiWorld, buildApiWorld } from "../helpers/api-world.js";
import { snapshotChanges, tableSnapshot } from "../helpers/db-snapshot.js";
import { endpointsOf, type OpenApiDocument } from "../helpers/openapi-conformance.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * The isolation matrix: every documented endpoint (enumerated from the OpenAPI document, so a
 * new one is covered without touching this file), aimed at a real workspace's real resources,
 * with five callers who must not get in. Each must meet the documented refusal, carry no data
 * of the victim, and change nothing; then the owner makes the same request and succeeds, which
 * proves the refusals were about the caller and not about the request.
 * test/api/isolation.test.ts covers what another reseller sees in lists.
 */

const t: TestApp = await startTestApp();

/**
 * better-sqlite3's handle: the table snapshots read every table raw, an SQLite-only check (this
 * file runs in the sqlite project only).
 */
function sqliteHandle() {
  const handle = t.database.sqlite;
  if (!handle) throw new Error("the table snapshots read SQLite's own handle");
  return handle;
}
const document = t.app.swagger() as unknown as OpenApiDocument;
const endpoints = endpointsOf(document)
  // The live event stream never ends an answer that gets in; test/api/event-stream.test.ts
  // checks who it lets in and what it shows them over a real connection.
  .filter((endpoint) => endpoint.operation.operationId !== "streamEvents")
  // Health checks are public by design (load balancers call them without a token) and hold no
  // one's data; test/service/platform.test.ts covers them.
  .filter(
    (endpoint) => !["getLiveness", "getReadiness"].includes(endpoint.operation.operationId ?? ""),
  )
  // Meta's webhooks carry no token: they are authenticated by the verify token and the
  // X-Hub-Signature-256 of the body; test/whatsapp/secrets-and-signatures.test.ts refuses the rest.
  .filter(
    (endpoint) =>
      !["verifyWhatsappWebhook", "receiveWhatsappWebhook"].includes(
        endpoint.operation.operationId ?? "",
      ),
  )
  .map((endpoint) => ({
    ...endpoint,
    name: `${endpoint.method} ${endpoint.path}`,
    scope: endpoint.operation.security?.[0]?.bearer?.[0] as Scope | undefined,
  }));

type Caller =
  | "another reseller"
  | "another workspace's token"
  | "lacking scope"
  | "revoked"
  | "none";
const callers: Caller[] = [
  "another reseller",
  "another workspace's token",
  "lacking scope",
  "revoked",
  "none",
];

let world: ApiWorld;
const tokens = {} as Record<Exclude<Caller, "lacking scope" | "none">, string>;
const lacking = new Map<Scope, string>();
let refusals = 0;

beforeAll(async () => {
  world = await buildApiWorld(t);
  tokens["another reseller"] = await t.otherReseller();
  const otherWorkspace = await t.createWorkspace({ name: "Neighbour", contact_email: "n@b.test" });
  tokens["another workspace's token"] = await t.tokenWith([...scopes], otherWorkspace);
  const revoked = await t.request("POST", "/api/v1/tokens", {
    body: { name: "soon revoked", scopes: [...scopes] },
  });
  const { id, token } = revoked.json().data as { id: string; token: string };
  expect((await t.request("DELETE", `/api/v1/tokens/${id}`)).statusCode).toBe(200);
  tokens.revoked = token;
  for (const scope of scopes)
    lacking.set(scope, await t.tokenWith(scopes.filter((s) => s !== scope)));
});
afterAll(async () => {
  console.log(
    `isolation matrix: ${refusals} refused calls across ${endpoints.length} endpoints, ${callers.length} callers`,
  );
  await t.close();
});

function tokenOf(caller: Caller, scope: Scope | undefined): string | null | undefined {
  if (caller === "none") return null;
  if (caller === "lacking scope") return scope ? lacking.get(scope) : undefined;
  return tokens[caller];
}

/** Whether the request names one of the victim's resources (a plan is everyone's). */
function addressesVictim(url: string, body: unknown): boolean {
  const sent = `${url} ${JSON.stringify(body ?? null)}`;
  return world.ids.some((id) => sent.includes(id));
}

/** The request with every victim id replaced by a well-formed id that exists nowhere. */
function withUnknownIds(text: string): string {
  return world.ids.reduce(
    (out, id) =>
      out.replaceAll(id, `${id.slice(0, id.indexOf("_") + 1)}01zzzzzzzzzzzzzzzzzzzzzzzz`),
    text,
  );
}

describe("isolation matrix: every endpoint refuses every caller that must not get in", () => {
  it("covers every documented endpoint, and knows each one's scope", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(30);
    for (const e of endpoints) {
      expect(e.operation.security, `${e.name} names no security requirement`).toBeDefined();
    }
  });

  for (const endpoint of endpoints) {
    it.each(callers)(`${endpoint.name}: %s`, async (caller) => {
      const token = tokenOf(caller, endpoint.scope);
      if (token === undefined) return; // "lacking scope" of an endpoint any token may call
      const { url, body } = world.requestFor(
        endpoint.method,
        endpoint.path,
        endpoint.operation.operationId,
      );
      const before = tableSnapshot(sqliteHandle());
      const res = await t.request(endpoint.method as "GET", url, {
        token,
        ...(body === undefined ? {} : { body }),
      });
      const what = `${caller} → ${endpoint.method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`;
      const json = res.json() as Record<string, unknown>;

      // Nothing of the victim's but what the caller sent itself (a 404 may name the id asked for).
      const sent = `${url} ${JSON.stringify(body ?? null)}`;
      for (const secret of world.secrets.filter((s) => !sent.includes(s))) {
        expect(res.body.includes(secret), `${what}\nleaks ${secret}`).toBe(false);
      }
      expect(res.statusCode, what).toBeLessThan(500);

      const refused = (status: number, code: string) => {
        refusals += 1;
        expect(res.statusCode, what).toBe(status);
        expect(json.status, what).toBe("error");
        expect(json.error_code, what).toBe(code);
        expect(errorCodes).toContain(json.error_code);
        expect(json, what).not.toHaveProperty("data");
        expect(snapshotChanges(before, tableSnapshot(sqliteHandle())), what).toEqual([]);
      };
      if (caller === "none" || caller === "revoked") return refused(401, "unauthenticated");
      if (caller === "lacking scope") {
        refused(403, "insufficient_scope");
        expect(json.message, what).toContain(`'${endpoint.scope}'`);
        return;
      }
      if (addressesVictim(url, body)) {
        if (caller === "another workspace's token" && res.statusCode === 403) {
          // A workspace token may not touch reseller-level resources at all (revoking a reseller
          // token): refused for what it is, whoever's the resource.
          refused(403, "insufficient_scope");
        } else {
          refused(404, "not_found");
        }
        // Never reveal which: the answer is the one for ids that exist nowhere.
        const unknown = await t.request(endpoint.method as "GET", withUnknownIds(url), {
          token,
          ...(body === undefined ? {} : { body: JSON.parse(withUnknownIds(JSON.stringify(body))) }),
        });
        expect(`${unknown.statusCode} ${unknown.body}`, what).toBe(
          `${res.statusCode} ${withUnknownIds(res.body)}`,
        );
        return;
      }
      if (res.statusCode >= 400) {
        expect(errorCodes, what).toContain(json.error_code);
        expect(json, what).not.toHaveProperty("data");
      }
      // Not aimed at the victim (their own lists, the plan catalogue, creating their own
      // things): whatever the answer, it carries nothing of the victim (checked above).
    });
  }
});

describe("the owner makes each of those requests", () => {
  for (const endpoint of endpoints) {
    it(`${endpoint.name} succeeds for the victim's own token`, async () => {
      const { url, body } = world.requestFor(
        endpoint.method,
        endpoint.path,
        endpoint.operation.operationId,
      );
      const res = await t.request(endpoint.method as "GET", url, {
        ...(body === undefined ? {} : { body }),
      });
      expect(res.statusCode, `${endpoint.method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(
        300,
      );
    });
  }
});
