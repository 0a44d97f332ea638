import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** The wire's timestamp form: ISO 8601 UTC to the second (api-contract.md, "Everywhere"). */
const wholeSecondUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A workspace with a channel and an approved template, and contacts of every consent state. */
async function campaignWorld(t: TestApp) {
  const ws = await t.createWorkspace({ plan_id: "2" });
  const base = `/api/v1/workspaces/${ws}`;
  const post = async (path: string, body: unknown) => {
    const res = await t.request("POST", `${base}${path}`, { body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };
  const channel = await post("/channels", { phone: "+4915112340000", name: "Main number" });
  await post("/templates", {
    name: "spring_news",
    category: "marketing",
    language: "en",
    components: [{ type: "BODY", text: "Hello {{1}}, news.", example: { body_text: [["Ada"]] } }],
  });
  t.clock.advance(5000);
  await t.runJobs();
  await post("/contacts", {
    phone: "+4915112345671",
    first_name: "Ada",
    opt_in_status: "opted_in",
  });
  await post("/contacts", {
    phone: "+4915112345672",
    first_name: "Bob",
    opt_in_status: "opted_in",
  });
  await post("/contacts", { phone: "+4915112345673", first_name: "Cy" });
  const campaign = await post("/campaigns", {
    name: "Spring launch",
    channel_id: channel.id,
    template_name: "spring_news",
    template_language: "en",
    audience: { all: true },
    variable_mapping: { "1": "first_name" },
  });
  return { base, campaign };
}

describe("what the API contract fixes where the interface document is silent", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("redelivers an event on a POST …/redeliver that carries no body at all", async () => {
    await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "https://crm.example.test/hooks", events: ["*"] },
    });
    await t.createWorkspace();
    const event = (await t.request("GET", "/api/v1/events?type=workspace.created")).json().data[0];

    const bare = await t.request("POST", `/api/v1/events/${event.id}/redeliver`);
    expect(bare.statusCode, bare.body).toBe(202);
    expect(bare.json().data.event_id).toBe(event.id);
    expect(bare.json().data.deliveries).toHaveLength(1);

    const emptyJson = await t.request("POST", `/api/v1/events/${event.id}/redeliver`, {
      headers: { "content-type": "application/json" },
    });
    expect(emptyJson.statusCode, emptyJson.body).toBe(202);
  });

  it("connects a sandbox number given only its phone, named by the number", async () => {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/channels`, {
      body: { phone: "+4915112340000" },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ phone: "+4915112340000", name: "+4915112340000" });
  });

  it("answers the health checks with the RateLimit headers too, without spending the budget", async () => {
    const first = await t.request("GET", "/healthz", { token: null });
    expect(first.statusCode).toBe(200);
    const limit = Number(first.headers["ratelimit-limit"]);
    expect(limit).toBeGreaterThan(0);
    expect(Number(first.headers["ratelimit-reset"])).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await t.request("GET", "/readyz", { token: null });
    const later = await t.request("GET", "/healthz", { token: null });
    expect(later.headers["ratelimit-remaining"]).toBe(first.headers["ratelimit-remaining"]);
    for (const path of ["/api/v1/openapi.json", "/docs"]) {
      const res = await t.request("GET", path, { token: null });
      expect(res.headers["ratelimit-limit"], path).toBe(String(limit));
    }
  });

  it("documents the redeliver body as optional in the OpenAPI document", async () => {
    const document = (await t.request("GET", "/api/v1/openapi.json")).json();
    const body = document.paths["/api/v1/events/{id}/redeliver"].post.requestBody;
    expect(body.required).toBe(false);
    expect(body.content["application/json"].schema).toMatchObject({
      type: "object",
      properties: { endpoint_id: { type: "string" } },
    });
  });

  it("still refuses a redeliver body with an unknown field, naming it", async () => {
    await t.createWorkspace();
    const event = (await t.request("GET", "/api/v1/events")).json().data[0];
    const res = await t.request("POST", `/api/v1/events/${event.id}/redeliver`, {
      body: { endpoint: "we_x" },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "endpoint", message: "is not a field this endpoint accepts" },
    ]);
  });

  it("sends workspace.created with the workspace exactly as the create answer shows it, invitation included", async () => {
    const created = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Invited Bakery", contact_email: "owner@invited.test" },
    });
    expect(created.statusCode).toBe(201);
    const workspace = created.json().data;
    expect(workspace.invitation.sent).toBe(true);

    const events = (await t.request("GET", "/api/v1/events?type=workspace.created")).json().data;
    const event = events.find((e: { workspace_id: string }) => e.workspace_id === workspace.id);
    expect(event.data).toEqual(workspace);
  });

  it("lists jobs with run_at to the second, like every other timestamp", async () => {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/templates`, {
      body: {
        name: "order_update",
        category: "utility",
        language: "en",
        components: [{ type: "BODY", text: "Your order has shipped." }],
      },
    });
    expect(res.statusCode).toBe(201);
    const jobs = (await t.request("GET", "/api/v1/jobs")).json().data;
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(job.run_at).toMatch(wholeSecondUtc);
      expect(job.created_at).toMatch(wholeSecondUtc);
    }
  });

  it("shows a cancelled draft's audience in its stats: cancelled and skipped add up to audience_total", async () => {
    const { base, campaign } = await campaignWorld(t);
    const cancel = await t.request("POST", `${base}/campaigns/${campaign.id}/cancel`);
    expect(cancel.json().data.status).toBe("cancelled");

    const stats = (await t.request("GET", `${base}/campaigns/${campaign.id}/stats`)).json().data;
    expect(stats).toMatchObject({
      audience_total: 3,
      skipped_no_consent: 1,
      skipped_opted_out: 0,
      cancelled: 2,
      sent: 0,
      queued: 0,
    });
  });

  it("refuses a new token for an archived workspace, whose tokens do not work, with 409 workspace_not_active", async () => {
    const ws = await t.createWorkspace();
    expect((await t.request("POST", `/api/v1/workspaces/${ws}/archive`)).statusCode).toBe(200);

    const refused = await t.request("POST", `/api/v1/workspaces/${ws}/tokens`, {
      body: { name: "pricing page", scopes: ["plans:read"] },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error_code).toBe("workspace_not_active");

    await t.request("PATCH", `/api/v1/workspaces/${ws}`, { body: { status: "active" } });
    const created = await t.request("POST", `/api/v1/workspaces/${ws}/tokens`, {
      body: { name: "pricing page", scopes: ["plans:read"] },
    });
    expect(created.statusCode).toBe(201);
    const secret = created.json().data.token;
    expect((await t.request("GET", "/api/v1/plans", { token: secret })).statusCode).toBe(200);
  });

  it("sends the RateLimit headers and X-Request-Id on the event stream too, like every response", async () => {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = t.app.server.address() as { port: number };
    const abort = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/events/stream`, {
      headers: { authorization: `Bearer ${t.token}` },
      signal: abort.signal,
    });
    abort.abort();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    expect(response.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
    expect(response.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
