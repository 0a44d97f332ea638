import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConformanceError,
  conformanceChecker,
  endpointsOf,
  type ObservedResponse,
  type OpenApiDocument,
} from "../helpers/openapi-conformance.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * The conformance checker that test-app.ts `request()` runs on every answer of the API suite:
 * it must let a conforming answer through and stop each kind of drift with a message that names
 * the operation, the status and what is wrong. The document itself is linted in CI by
 * `npm run lint:openapi`; the checks here are the ones a linter cannot make.
 */
/**
 * Operations without a token: Meta's webhooks prove themselves by signature or verify token;
 * load balancers call the health checks.
 */
const publicOperations = new Set([
  "verifyWhatsappWebhook",
  "receiveWhatsappWebhook",
  "getLiveness",
  "getReadiness",
]);

describe("OpenAPI conformance of every API test's answers", () => {
  let t: TestApp;
  let document: OpenApiDocument;
  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.request("GET", "/api/v1/openapi.json", { token: null })).json();
  });
  afterAll(() => t.close());

  const answer = (over: Partial<ObservedResponse> & { json?: unknown }): ObservedResponse => ({
    method: "GET",
    url: "/api/v1/workspaces/ws_1",
    statusCode: 404,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify(
      over.json ?? { status: "error", message: "No such resource.", error_code: "not_found" },
    ),
    ...over,
  });
  const check = (over: Partial<ObservedResponse> & { json?: unknown }) => () =>
    conformanceChecker(document).check(answer(over));

  it("serves the document it checks against: OpenAPI 3.1, every operation named and scoped", () => {
    expect(document).toMatchObject({ openapi: "3.1.0" });
    const endpoints = endpointsOf(document);
    expect(endpoints.length).toBeGreaterThanOrEqual(30);
    const ids = endpoints.map((e) => e.operation.operationId);
    expect(new Set(ids).size).toBe(endpoints.length);
    for (const { method, path, operation } of endpoints) {
      const name = `${method} ${path}`;
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.summary, name).toBeTruthy();
      if (publicOperations.has(operation.operationId ?? "")) continue;
      expect(operation.security, name).toHaveLength(1);
      // Every authenticated operation can be refused without or over its budget.
      expect(Object.keys(operation.responses), name).toEqual(
        expect.arrayContaining(["401", "429"]),
      );
      if (method !== "GET") {
        expect(Object.keys(operation.responses), name).toEqual(
          expect.arrayContaining(["400", "413", "415"]),
        );
      }
    }
  });

  it("lets a conforming answer through", () => {
    expect(check({})).not.toThrow();
  });

  it("stops a status the operation does not document, naming it", () => {
    expect(check({ statusCode: 409 })).toThrow(ConformanceError);
    expect(check({ statusCode: 500 })).toThrow(
      /GET \/api\/v1\/workspaces\/\{id\} \(getWorkspace\) answered 500, a status its OpenAPI operation does not document/,
    );
  });

  it("stops a body that drifts from the schema: a wrong type, a missing or an unknown field", () => {
    expect(check({ json: { status: "error", message: 1, error_code: "not_found" } })).toThrow(
      /\/message must be string/,
    );
    expect(check({ json: { status: "error", error_code: "not_found" } })).toThrow(
      /must have required property 'message'/,
    );
    expect(
      check({ json: { status: "error", message: "x", error_code: "not_found", leak: 1 } }),
    ).toThrow(/must NOT have additional properties \(leak\)/);
    expect(check({ json: { status: "error", message: "x", error_code: "no_such_code" } })).toThrow(
      /error_code must be equal to one of the allowed values/,
    );
  });

  it("follows $refs into components: a 200 is checked against the Workspace schema", async () => {
    const id = await t.createWorkspace();
    const res = await t.request("GET", `/api/v1/workspaces/${id}`);
    const good = { statusCode: 200, url: `/api/v1/workspaces/${id}`, json: res.json() };
    expect(check(good)).not.toThrow();
    const drifted = structuredClone(res.json());
    drifted.data.status = "sleeping";
    expect(check({ ...good, json: drifted })).toThrow(/\/data\/status must be equal to one of/);
  });

  it("stops an answer that is not JSON", () => {
    expect(check({ contentType: "text/html", body: "<h1>Not found</h1>" })).toThrow(
      /content-type is text\/html/,
    );
    expect(check({ body: "{not json" })).toThrow(/the body is not JSON/);
  });

  it("routes as fastify does: a static segment wins over a parameter", () => {
    const checker = conformanceChecker(document);
    expect(checker.find("GET", "/api/v1/tokens/current").operation?.operationId).toBe(
      "getCurrentToken",
    );
    expect(checker.find("DELETE", "/api/v1/tokens/current").operation?.operationId).toBe(
      "revokeToken",
    );
    expect(
      checker.find("GET", "/api/v1/workspaces/ws_1/contacts/imports").operation?.operationId,
    ).toBe("listContactImports");
  });

  it("expects the envelope's 404 for an unknown path and 405 for a wrong method", () => {
    expect(check({ url: "/api/v1/nothing-here" })).not.toThrow();
    expect(check({ url: "/api/v1/nothing-here", statusCode: 200, json: {} })).toThrow(
      /no documented path/,
    );
    const notAllowed = {
      status: "error",
      message: "PUT is not allowed",
      error_code: "method_not_allowed",
    };
    expect(check({ method: "PUT", statusCode: 405, json: notAllowed })).not.toThrow();
    expect(check({ method: "PUT", statusCode: 200, json: notAllowed })).toThrow(/expected 405/);
  });
});
