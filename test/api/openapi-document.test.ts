import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingPeriods } from "../../src/contract/vocabulary.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

interface Doc {
  info: { description: string };
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in?: string; schema: { enum?: string[] } }[];
        requestBody?: { content: Record<string, { schema: { type?: string } }> };
        responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; headers?: Record<string, unknown> };
}

describe("the OpenAPI document", () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json() as Doc;
  });
  afterAll(() => t.close());

  it("describes every response in words, never as 'Default Response'", () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.description, `${method} ${path} ${status}`).not.toBe("Default Response");
          expect(response.description.length).toBeGreaterThan(3);
        }
      }
    }
  });

  it("declares the Idempotency-Key header on every POST, and the answers' headers", () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      const post = operations.post;
      if (!post) continue;
      const key = post.parameters?.find((p) => p.name === "Idempotency-Key");
      expect(key?.in, `POST ${path}`).toBe("header");
    }
    const plans = doc.paths["/api/v1/plans"]?.get?.responses;
    expect(Object.keys(plans?.["200"]?.headers ?? {})).toEqual([
      "X-Request-Id",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
    ]);
    expect(plans?.["429"]?.headers).toHaveProperty("Retry-After");
    const created = doc.paths["/api/v1/workspaces"]?.post?.responses["201"];
    expect(created?.headers).toHaveProperty("Idempotent-Replayed");
    expect(Object.keys(doc.components.headers ?? {})).toContain("RateLimit-Reset");
  });

  it("declares the contact import's file streamed as a text/csv body beside the JSON body", () => {
    const body = doc.paths["/api/v1/workspaces/{id}/contacts/import"]?.post?.requestBody;
    expect(Object.keys(body?.content ?? {})).toEqual(["application/json", "text/csv"]);
    expect(body?.content["text/csv"]?.schema.type).toBe("string");
  });

  it("declares the answers sent as text with their own media type, not as JSON", () => {
    const media = (path: string) =>
      Object.keys(
        (
          doc.paths[path]?.get?.responses["200"] as
            | { content?: Record<string, unknown> }
            | undefined
        )?.content ?? {},
      );
    expect(media("/webhooks/whatsapp")).toEqual(["text/plain"]);
    expect(media("/api/v1/events/stream")).toEqual(["text/event-stream"]);
    expect(media("/api/v1/plans")).toEqual(["application/json"]);
  });

  it("asks no token of the health checks and Meta's webhooks, and a bearer token of the rest", () => {
    const security = (path: string, method: string) =>
      (doc.paths[path]?.[method] as { security?: unknown } | undefined)?.security;
    for (const [path, method] of [
      ["/healthz", "get"],
      ["/readyz", "get"],
      ["/webhooks/whatsapp", "get"],
      ["/webhooks/whatsapp", "post"],
    ] as const) {
      expect(security(path, method), `${method} ${path}`).toEqual([]);
    }
    expect(security("/api/v1/plans", "get")).toEqual([{ bearer: ["plans:read"] }]);
  });

  it("declares 431 for headers too large on every authenticated operation", () => {
    const plans = doc.paths["/api/v1/plans"]?.get?.responses;
    expect(plans?.["431"]?.description).toMatch(/headers/);
  });

  it("offers billing_period as an enum of the five periods", () => {
    const param = doc.paths["/api/v1/plans"]?.get?.parameters?.find(
      (p) => p.name === "billing_period",
    );
    expect(param?.schema.enum).toEqual([...billingPeriods]);
  });

  it("names no schema …Input unless a request uses it", () => {
    const text = JSON.stringify(doc.paths);
    for (const name of Object.keys(doc.components.schemas).filter((n) => n.endsWith("Input"))) {
      expect(text, name).toContain(`#/components/schemas/${name}"`);
    }
    expect(Object.keys(doc.components.schemas)).not.toContain("ErrorBodyInput");
  });

  it("escapes <token> in the description that /docs renders as HTML", () => {
    expect(doc.info.description).toContain("Bearer &lt;token&gt;");
  });

  it("serves /docs without fastify's logo or Swagger's top bar", async () => {
    const init = await t.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    expect(init.body).not.toContain(
      (await import("node:fs"))
        .readFileSync("node_modules/@fastify/swagger-ui/static/logo.svg")
        .toString("base64")
        .slice(0, 40),
    );
    const index = await t.app.inject({ method: "GET", url: "/docs" });
    expect(index.body).toContain("reseller.css");
    const css = await t.app.inject({ method: "GET", url: "/docs/static/theme/reseller.css" });
    expect(css.body).toContain(".topbar { display: none; }");
  });
});
