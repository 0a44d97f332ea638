import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCatalogue, errorCodes } from "../../src/contract/errors.js";
import { importBodyLimitBytes } from "../../src/service/body-limits.js";
import { type ApiWorld, buildApiWorld } from "../helpers/api-world.js";
import { snapshotChanges, tableSnapshot, writeCounter } from "../helpers/db-snapshot.js";
import {
  conformanceChecker,
  type Endpoint,
  endpointsOf,
  type OpenApiDocument,
} from "../helpers/openapi-conformance.js";
import { adminToken, startTestApp, type TestApp } from "../helpers/test-app.js";
import {
  badEscapes,
  badNumbers,
  bodyProperties,
  contentTypes,
  encode,
  type HostileRequest,
  hostileCsv,
  hostileString,
  nestedJson,
  pathEscapes,
  rawBodies,
  sampleBody,
  wrongValue,
} from "./arbitraries.js";

/**
 * Hostile input, property-based: for every endpoint of the OpenAPI document (so a new endpoint
 * is covered without touching this file), generated malformed requests: wrong types, missing and
 * extra fields, huge strings, odd Unicode, bad base64, injection strings in every query and path
 * parameter, bad paging values, wrong methods, non-JSON bodies and wrong content types. Every
 * answer must be a success or a 4xx in the error envelope with a catalogued `error_code` that
 * matches its status and the document, never a 5xx; a refused request must change nothing in
 * the database (stored Idempotency-Key answers aside). Fixed seed and run count: deterministic.
 */

const seed = 20_261_122;
const runsPerEndpoint = 100;

const t: TestApp = await startTestApp({ rateLimit: { max: 10_000_000, windowMs: 60_000 } });

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
const checker = conformanceChecker(document);
// The live event stream never ends an answer it accepts; test/api/event-stream.test.ts covers it.
const endpoints = endpointsOf(document).filter(
  (endpoint) => endpoint.operation.operationId !== "streamEvents",
);
const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Fastify's default `maxParamLength`: a longer path parameter is refused before routing. */
const maxParamLength = 100;

let world: ApiWorld;
/** Rows written so far (stored Idempotency-Key answers aside). */
let writes: () => number;
let tried = 0;
const statuses = new Map<number, number>();

beforeAll(async () => {
  world = await buildApiWorld(t);
  writes = writeCounter(sqliteHandle());
});
afterAll(async () => {
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`);
  console.log(
    `hostile input: ${tried} requests across ${endpoints.length} endpoints (seed ${seed}; ${byStatus.join(" ")})`,
  );
  await t.close();
});

function clip(text: string | undefined, max = 300): string {
  if (text === undefined) return "(none)";
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** Sends one request and asserts the property; returns the answer. */
async function send(request: HostileRequest): Promise<LightMyRequestResponse> {
  tried += 1;
  const before = writes();
  const res = await t.app.inject({
    method: request.method as "GET",
    url: request.url,
    headers: request.headers,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const what = `${request.method} ${clip(request.url, 200)}\nheaders: ${clip(JSON.stringify(request.headers))}\npayload: ${clip(request.payload)}\n→ ${res.statusCode} ${clip(res.body)}`;

  expect(res.statusCode, `a 5xx for hostile input:\n${what}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.headers["content-type"], what).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as Record<string, unknown>;
    expect(body.status, what).toBe("error");
    expect(errorCodes, what).toContain(body.error_code);
    expect(errorCatalogue[body.error_code as keyof typeof errorCatalogue].status, what).toBe(
      res.statusCode,
    );
    expect(typeof body.message, what).toBe("string");
    expect(body, what).not.toHaveProperty("data");
    expect(writes() - before, `a refused request wrote to the database:\n${what}`).toBe(0);
  }
  // As light-my-request sends it: dot segments resolved, characters escaped.
  const sent = new URL(request.url, "http://localhost");
  try {
    checker.check({
      method: request.method,
      url: sent.pathname,
      statusCode: res.statusCode,
      contentType: res.headers["content-type"] as string | undefined,
      body: res.body,
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}\nrequest: ${what}`);
  }
  return res;
}

/** The request's real path parameters, by name, as they appear (escaped) in the URL. */
function pathValues(template: string, url: string): Record<string, string> {
  const names = template.split("/");
  const values = url.split("?")[0]?.split("/") ?? [];
  return Object.fromEntries(
    names.flatMap((part, i) => {
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      return name ? [[name, values[i] ?? ""]] : [];
    }),
  );
}

function pathArbitrary(endpoint: Endpoint, realUrl: string): fc.Arbitrary<string> {
  const real = pathValues(endpoint.path, realUrl);
  const names = Object.keys(real);
  if (names.length === 0) return fc.constant(endpoint.path);
  const otherIds = world.ids.map(encodeURIComponent);
  const value = (name: string) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(real[name] ?? "") },
      { weight: 1, arbitrary: fc.constantFrom(...otherIds) },
      {
        weight: 3,
        // Longer ones are answered by fastify before routing (a test of their own below).
        arbitrary: hostileString.map(encode).filter((v) => v.length <= maxParamLength),
      },
      { weight: 1, arbitrary: fc.constantFrom(...pathEscapes) },
    );
  return fc
    .tuple(...names.map(value))
    .map((vals) =>
      names.reduce((path, name, i) => path.replace(`{${name}}`, vals[i] ?? ""), endpoint.path),
    );
}

function queryArbitrary(endpoint: Endpoint): fc.Arbitrary<string> {
  const names = (endpoint.operation.parameters ?? [])
    .filter((p) => p.in === "query")
    .map((p) => p.name);
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...badNumbers).map(encode) },
    // Past 8 KB a URL is refused by Node's HTTP parser before the service sees it.
    { weight: 3, arbitrary: hostileString.map(encode).filter((v) => v.length <= 8000) },
    { weight: 1, arbitrary: fc.constantFrom(...badEscapes) },
  );
  const pair = (name: string) =>
    fc.option(
      value.map((v) => `${name}=${v}`),
      { nil: undefined, freq: 2 },
    );
  return fc
    .tuple(
      fc.tuple(...names.map(pair)),
      fc.option(
        fc.tuple(hostileString, value).map(([k, v]) => `${encode(k)}=${v}`),
        { nil: undefined, freq: 4 },
      ),
      fc.boolean(),
    )
    .map(([pairs, extra, repeat]) => {
      const parts = [...pairs, extra].filter((p): p is string => p !== undefined);
      if (repeat && parts[0]) parts.push(parts[0]);
      return parts.length ? `?${parts.join("&")}` : "";
    });
}

type Mutation =
  | { kind: "set"; key: string; value: unknown }
  | { kind: "drop"; key: string }
  | { kind: "extra"; key: string; value: unknown }
  | { kind: "replace"; value: unknown };

function applyMutations(base: unknown, mutations: Mutation[]): unknown {
  let body: unknown = structuredClone(base ?? {});
  for (const m of mutations) {
    if (m.kind === "replace") {
      body = m.value;
      continue;
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) body = {};
    const target = body as Record<string, unknown>;
    if (m.kind === "drop") delete target[m.key];
    // defineProperty: a key such as __proto__ becomes a real JSON field, not a prototype.
    else
      Object.defineProperty(target, m.key, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return body;
}

function bodyArbitrary(
  endpoint: Endpoint,
  base: unknown,
): fc.Arbitrary<{ payload?: string; contentType?: string }> {
  const props = bodyProperties(document, endpoint);
  const keys = props.length ? props : ["name"];
  const isImport = props.includes("csv");
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("set" as const),
        key: fc.constantFrom(...keys),
        value: isImport ? fc.oneof(hostileCsv, wrongValue) : wrongValue,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant("drop" as const), key: fc.constantFrom(...keys) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("extra" as const),
        key: fc.oneof(
          hostileString,
          fc.constantFrom("__proto__", "constructor", "id", "workspace_id"),
        ),
        value: wrongValue,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("replace" as const), value: wrongValue }),
    },
  );
  const hasBody = endpoint.operation.requestBody !== undefined;
  const start =
    base ??
    (hasBody
      ? sampleBody(document, endpoint.operation.requestBody?.content?.["application/json"]?.schema)
      : undefined);
  const mutated = fc
    .array(mutation, { minLength: 1, maxLength: 3 })
    .map((ms) => JSON.stringify(applyMutations(start, ms)) ?? "null");
  const csvOnly = hostileCsv.map((csv) => JSON.stringify({ ...(start as object), csv }));
  return fc.oneof(
    {
      weight: hasBody ? 6 : 0,
      arbitrary: mutated.map((payload) => ({ payload, contentType: "application/json" })),
    },
    {
      weight: isImport ? 4 : 0,
      arbitrary: csvOnly.map((payload) => ({ payload, contentType: "application/json" })),
    },
    {
      weight: 2,
      arbitrary: rawBodies.map((payload) => ({ payload, contentType: "application/json" })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...contentTypes),
          fc.oneof(mutated, fc.constant(JSON.stringify(start ?? {}))),
        )
        .map(([contentType, payload]) => ({ payload, contentType })),
    },
    { weight: hasBody ? 1 : 3, arbitrary: fc.constant({}) },
  );
}

const hostileAuthorization = fc.constantFrom(
  "",
  "Bearer",
  "Bearer ",
  `Basic ${Buffer.from("admin:admin").toString("base64")}`,
  `Bearer ${adminToken} extra`,
  `Bearer ${adminToken.toUpperCase()}`,
  "Bearer rsk_' OR 1=1 --",
  `Bearer ${"x".repeat(10_000)}`,
  "Bearer wsk_",
);

function requestArbitrary(endpoint: Endpoint): fc.Arbitrary<HostileRequest> {
  const { url: realUrl, body: base } = world.requestFor(
    endpoint.method,
    endpoint.path,
    endpoint.operation.operationId,
  );
  const documented = Object.keys(document.paths[endpoint.path] ?? {}).map((m) => m.toUpperCase());
  const wrong = methods.filter((m) => !documented.includes(m));
  return (
    fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(endpoint.method) },
          {
            weight: wrong.length ? 1 : 0,
            arbitrary: fc.constantFrom(...(wrong.length ? wrong : ["PUT"])),
          },
        ),
        path: pathArbitrary(endpoint, realUrl),
        query: queryArbitrary(endpoint),
        body: bodyArbitrary(endpoint, base),
        authorization: fc.oneof(
          { weight: 12, arbitrary: fc.constant(`Bearer ${adminToken}`) },
          { weight: 1, arbitrary: hostileAuthorization },
        ),
        idempotencyKey: fc.option(
          fc.oneof(
            fc.constantFrom("", "k".repeat(256)),
            fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 40 }),
          ),
          { nil: undefined, freq: 6 },
        ),
        lieAboutLength: fc.integer({ min: 0, max: 30 }).map((n) => n === 0),
      })
      // A path ending in a slash reaches no route (a test of its own below).
      .filter((r) => !new URL(r.path, "http://localhost").pathname.endsWith("/"))
      .map((r) => {
        const headers: Record<string, string> = { authorization: r.authorization };
        if (r.body.contentType) headers["content-type"] = r.body.contentType;
        if (r.idempotencyKey !== undefined && r.method === "POST")
          headers["idempotency-key"] = r.idempotencyKey;
        if (r.lieAboutLength && r.body.payload !== undefined)
          headers["content-length"] = String(importBodyLimitBytes + 1);
        return {
          method: r.method,
          url: `${r.path}${r.query}`,
          headers,
          ...(r.body.payload === undefined ? {} : { payload: r.body.payload }),
        };
      })
  );
}

describe("hostile input: never a 5xx, always the error envelope, refusals change nothing", () => {
  it("enumerates the endpoints from the OpenAPI document", () => {
    expect(endpoints.length).toBeGreaterThanOrEqual(30);
  });

  for (const endpoint of endpoints) {
    it(`${endpoint.method} ${endpoint.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(endpoint), async (request) => {
          await send(request);
        }),
        { seed, numRuns: runsPerEndpoint, endOnFailure: true },
      );
    });
  }

  it("answers every undocumented method on every path with 405 and the methods it takes", async () => {
    let wrong = 0;
    for (const path of Object.keys(document.paths)) {
      const { url } = world.requestFor("GET", path, undefined);
      // A method another template takes on this URL is routed there (DELETE /tokens/current
      // is DELETE /tokens/{id}), so only methods no matching template takes are wrong.
      for (const method of methods.filter((m) => !checker.find(m, url).operation)) {
        wrong += 1;
        const res = await send({ method, url, headers: { authorization: `Bearer ${adminToken}` } });
        expect(res.statusCode, `${method} ${url}`).toBe(405);
        expect(res.json()).toMatchObject({ error_code: "method_not_allowed" });
        expect(res.headers.allow, `${method} ${url}`).toBeDefined();
      }
    }
    expect(wrong).toBeGreaterThan(50);
  });

  // The router's own errors (a path whose percent-escapes do not decode) go through the
  // service's `frameworkErrors`, so they too are the envelope: 400 invalid_url.
  it("answers a path whose percent-escapes do not decode with the envelope", async () => {
    for (const bad of badEscapes.filter((e) => !pathEscapes.includes(e))) {
      await send({
        method: "GET",
        url: `/api/v1/workspaces/${bad}`,
        headers: { authorization: `Bearer ${adminToken}` },
      });
    }
  });

  // A path parameter over fastify's maxParamLength can be no id: 404 not_found in the envelope.
  it("answers a path parameter over 100 characters with the envelope", async () => {
    await send({
      method: "GET",
      url: `/api/v1/workspaces/ws_${"x".repeat(maxParamLength)}`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
  });

  // A body nested a few thousand levels deep with an Idempotency-Key: the request fingerprint
  // cannot be made, which is a 422 naming the body, not a 500.
  it("answers a deeply nested body with an Idempotency-Key without a 5xx", async () => {
    await send({
      method: "POST",
      url: "/api/v1/workspaces",
      headers: {
        authorization: `Bearer ${adminToken}`,
        "content-type": "application/json",
        "idempotency-key": "deeply-nested",
      },
      payload: `{"name":${nestedJson("[", 5000)}}`,
    });
  });

  // Nesting a first check walks by recursion overflowed the call stack past about 3,000 levels:
  // a 500 on every route that takes a body, and on the dashboard's sign-in, which needs no token.
  it("answers a body nested 20,000 levels deep on every route that takes one with a 4xx", async () => {
    const deep = [nestedJson("[", 20_000), nestedJson('{"a":', 20_000)];
    // Only routes that read a body: the others (a launch, a suspension) would act on the world.
    const withBody = endpoints.filter((e) => e.operation.requestBody !== undefined);
    expect(withBody.length).toBeGreaterThan(10);
    for (const endpoint of withBody) {
      const { url } = world.requestFor(endpoint.method, endpoint.path, undefined);
      for (const payload of [...deep, `{"name":${deep[1]}}`]) {
        await send({
          method: endpoint.method,
          url,
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          payload,
        });
      }
    }
    for (const payload of [...deep, `{"token":${deep[1]}}`]) {
      const signIn = await t.app.inject({
        method: "POST",
        url: "/dashboard/session",
        headers: { "content-type": "application/json" },
        payload,
      });
      expect(signIn.statusCode).toBeGreaterThanOrEqual(400);
      expect(signIn.statusCode).toBeLessThan(500);
    }
  });

  // A path with a trailing slash that no route takes (GET /api/v1/workspaces/ws_…/) is a 404,
  // not a 405 that names the very method it refuses.
  it("answers a path with a trailing slash that no route takes with 404", async () => {
    const res = await send({
      method: "GET",
      url: `/api/v1/workspaces/${world.workspaceId}/`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(res.statusCode).toBe(404);
  });

  it("refuses a body over the limit with 413 before reading it all", async () => {
    const ws = `/api/v1/workspaces/${world.workspaceId}`;
    const oversized = `{"csv":"${"A".repeat(importBodyLimitBytes + 16)}"}`;
    const res = await send({
      method: "POST",
      url: `${ws}/contacts/import`,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      payload: oversized,
    });
    expect(res.json()).toMatchObject({ error_code: "payload_too_large" });
  });

  it("watches every table: a write is counted, and the refusals above changed nothing", async () => {
    const before = writes();
    const res = await t.request("PATCH", `/api/v1/workspaces/${world.workspaceId}`, {
      body: { name: "Renamed by the watcher check" },
    });
    expect(res.statusCode).toBe(200);
    expect(writes()).toBeGreaterThan(before);
  });

  it("refuses an import over a million rows with 413, storing nothing", async () => {
    const snapshot = tableSnapshot(sqliteHandle());
    const rows = Array.from(
      { length: 1_000_001 },
      (_, i) => `+49151${String(20_000_000 + i).padStart(8, "0")}`,
    );
    const csv = Buffer.from(`phone\n${rows.join("\n")}\n`).toString("base64");
    const res = await send({
      method: "POST",
      url: `/api/v1/workspaces/${world.workspaceId}/contacts/import`,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      payload: JSON.stringify({ csv }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error_code: "payload_too_large" });
    expect(snapshotChanges(snapshot, tableSnapshot(sqliteHandle()))).toEqual([]);
  });
});
