import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  WorkspaceListResponse,
  WorkspaceResponse,
  WorkspaceWithUsageResponse,
} from "../../src/contract/workspaces.js";
import { publicUrl, RecordingMailer, startTestApp, type TestApp } from "../helpers/test-app.js";

/** Plan ids of the demo catalogue, in its order. */
const freeTrialPlan = "1";
const starterPlan = "2";
const privateEnterprisePlan = "5";

const dayMs = 86_400_000;

describe("workspaces", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  async function create(body: Record<string, unknown>) {
    return t.request("POST", "/api/v1/workspaces", {
      body: { name: "Acme", contact_email: "owner@acme.test", ...body },
    });
  }

  async function outbox() {
    return t.database.db.selectFrom("outbox").selectAll().execute();
  }

  describe("create", () => {
    it("starts a workspace on a free plan with trial days as a trial that ends after those days", async () => {
      const res = await create({ plan_id: freeTrialPlan });
      expect(res.statusCode).toBe(201);
      const ws = WorkspaceResponse.parse(res.json()).data;
      expect(ws.status).toBe("trial");
      expect(ws.trial_ends_at).toBe("2026-12-06T09:30:00Z");
      expect(ws.plan_id).toBe("1");
      expect(ws.plan).toEqual({ id: 1, name: "Free Trial", slug: "free-trial" });
      expect(ws.id).toMatch(/^ws_/);
      expect(ws.created_at).toBe("2026-11-22T09:30:00Z");
    });

    it("starts a workspace on a paid plan as active without a trial end", async () => {
      const ws = WorkspaceResponse.parse((await create({ plan_id: starterPlan })).json()).data;
      expect(ws.status).toBe("active");
      expect(ws.trial_ends_at).toBeNull();
      expect(ws.plan?.slug).toBe("starter-monthly");
    });

    it("creates a workspace without a plan when plan_id is omitted", async () => {
      const ws = WorkspaceResponse.parse((await create({})).json()).data;
      expect(ws).toMatchObject({ status: "active", plan_id: null, plan: null });
    });

    it("accepts a private plan and a plan id written as a JSON number", async () => {
      const ws = WorkspaceResponse.parse((await create({ plan_id: 5 })).json()).data;
      expect(ws.plan_id).toBe(privateEnterprisePlan);
      expect(ws.plan?.slug).toBe("enterprise-custom");
    });

    it("refuses an unknown plan id with a 422 naming plan_id", async () => {
      for (const planId of ["999", "abc", 0, 2147483648, "2147483648"]) {
        const res = await create({ plan_id: planId });
        expect(res.statusCode).toBe(422);
        expect(res.json()).toMatchObject({
          status: "error",
          error_code: "validation_failed",
          details: [{ field: "plan_id" }],
        });
      }
      expect(await t.database.db.selectFrom("workspaces").selectAll().execute()).toEqual([]);
    });

    it("names every invalid field in one 422", async () => {
      const res = await t.request("POST", "/api/v1/workspaces", {
        body: { contact_email: "not-an-email", send_invitation: "yes" },
      });
      expect(res.statusCode).toBe(422);
      const fields = (res.json() as { details: { field: string }[] }).details.map((d) => d.field);
      expect(fields.sort()).toEqual(["contact_email", "name", "send_invitation"]);
    });

    it("takes an internationalised contact email, as a contact's email is taken", async () => {
      for (const address of ["anna@münchen.de", "émilie.10@exämple.fr", "josé@xn--exmple-cua.de"]) {
        const res = await create({ contact_email: address });
        expect(res.statusCode, address).toBe(201);
        expect(res.json().data.contact_email).toBe(address);
      }
      const refused = await create({ contact_email: "anna@münchen" });
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ details: [{ field: "contact_email" }] });
    });

    it("refuses a field it does not know, naming it", async () => {
      const res = await create({ plan: "starter" });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ details: [{ field: "plan" }] });
    });

    it("needs workspaces:write, naming the missing scope", async () => {
      const readOnly = await t.tokenWith(["workspaces:read"]);
      const res = await t.request("POST", "/api/v1/workspaces", {
        token: readOnly,
        body: { name: "Acme", contact_email: "owner@acme.test" },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error_code: "insufficient_scope" });
      expect(res.json().message).toContain("workspaces:write");
    });
  });

  describe("invitation", () => {
    it("writes the invitation with a sign-up link to the outbox by default", async () => {
      const ws = WorkspaceResponse.parse((await create({ plan_id: starterPlan })).json()).data;
      expect(ws.invitation).toEqual({ sent: true, sent_at: "2026-11-22T09:30:00Z" });
      const [mail, ...others] = await outbox();
      expect(others).toEqual([]);
      expect(mail).toMatchObject({
        workspace_id: ws.id,
        kind: "invitation",
        recipient: "owner@acme.test",
        delivery: "outbox",
      });
      expect(mail?.subject).toContain("Acme");
      expect(mail?.body).toContain(`${publicUrl}/register?workspace=${ws.id}&plan=starter-monthly`);
      // The link's page asks for nothing: the email does not tell the client to sign up there.
      expect(mail?.body).toContain("your provider will give you access to it");
      expect(mail?.body).not.toMatch(/sign up/i);
    });

    it("sends no invitation when send_invitation is false", async () => {
      const ws = WorkspaceResponse.parse((await create({ send_invitation: false })).json()).data;
      expect(ws.invitation).toEqual({ sent: false, sent_at: null });
      expect(await outbox()).toEqual([]);
    });

    it("sends the invitation through SMTP when configured and keeps it in the outbox", async () => {
      await t.close();
      const mailer = new RecordingMailer();
      t = await startTestApp({ mailer });
      const ws = WorkspaceResponse.parse((await create({})).json()).data;
      expect(ws.invitation.sent).toBe(true);
      expect(mailer.sent).toHaveLength(1);
      expect(mailer.sent[0]).toMatchObject({ to: "owner@acme.test" });
      expect(mailer.sent[0]?.text).toContain(`/register?workspace=${ws.id}`);
      expect(await outbox()).toMatchObject([{ delivery: "sent", error: null }]);
    });

    it("still creates the workspace when SMTP fails, and records the failure", async () => {
      await t.close();
      t = await startTestApp({ mailer: new RecordingMailer("connect ECONNREFUSED 127.0.0.1:25") });
      const res = await create({});
      expect(res.statusCode).toBe(201);
      const ws = WorkspaceResponse.parse(res.json()).data;
      expect(ws.invitation).toEqual({ sent: false, sent_at: null });
      expect(await outbox()).toMatchObject([
        { delivery: "failed", error: "connect ECONNREFUSED 127.0.0.1:25", sent_at: null },
      ]);
    });
  });

  describe("get", () => {
    it("shows usage with zero counts and every limit and quota of the plan", async () => {
      const id = await t.createWorkspace({ plan_id: freeTrialPlan });
      const res = await t.request("GET", `/api/v1/workspaces/${id}`);
      expect(res.statusCode).toBe(200);
      const ws = WorkspaceWithUsageResponse.parse(res.json()).data;
      expect(ws.status).toBe("trial");
      expect(ws.usage).toEqual({
        contacts: { total: 0, opted_in: 0, not_set: 0, opted_out: 0 },
        templates: {
          total: 0,
          draft: 0,
          pending: 0,
          approved: 0,
          rejected: 0,
          paused: 0,
          disabled: 0,
        },
        campaigns: {
          total: 0,
          draft: 0,
          scheduled: 0,
          running: 0,
          paused: 0,
          completed: 0,
          failed: 0,
          cancelled: 0,
        },
        messages_sent_this_month: 0,
        limits: [
          { key: "contacts", name: "Contacts", type: "limit", limit: 500, used: 0 },
          { key: "templates", name: "Message templates", type: "limit", limit: 5, used: 0 },
          {
            key: "messages_per_month",
            name: "Messages per month",
            type: "quota",
            limit: 1000,
            used: 0,
          },
        ],
      });
    });

    it("shows unlimited features as -1 and no limits without a plan", async () => {
      const enterprise = await t.createWorkspace({ plan_id: privateEnterprisePlan });
      const none = await t.createWorkspace();
      const withPlan = WorkspaceWithUsageResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${enterprise}`)).json(),
      ).data;
      expect(withPlan.usage.limits.map((l) => l.limit)).toEqual([-1, -1, -1]);
      const withoutPlan = WorkspaceWithUsageResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${none}`)).json(),
      ).data;
      expect(withoutPlan.usage.limits).toEqual([]);
    });

    it("answers 404 for an unknown workspace", async () => {
      const res = await t.request("GET", "/api/v1/workspaces/ws_nope");
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error_code: "not_found" });
    });
  });

  describe("update", () => {
    it("changes only the given fields", async () => {
      const id = await t.createWorkspace({ plan_id: freeTrialPlan });
      t.clock.advance(60_000);
      const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        body: { name: "Acme GmbH" },
      });
      expect(res.statusCode).toBe(200);
      const ws = WorkspaceResponse.parse(res.json()).data;
      expect(ws).toMatchObject({
        name: "Acme GmbH",
        status: "trial",
        plan_id: "1",
        contact_email: "owner@acme.test",
        created_at: "2026-11-22T09:30:00Z",
        updated_at: "2026-11-22T09:31:00Z",
      });
    });

    it("suspends and reactivates a workspace", async () => {
      const id = await t.createWorkspace({ plan_id: freeTrialPlan });
      const suspended = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        body: { status: "suspended" },
      });
      expect(suspended.json().data).toMatchObject({ status: "suspended", name: "Acme" });
      const active = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        body: { status: "active" },
      });
      expect(active.json().data.status).toBe("active");
    });

    it("refuses archived, trial or any other status with a 422 naming status", async () => {
      const id = await t.createWorkspace();
      for (const status of ["archived", "trial", "deleted"]) {
        const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, { body: { status } });
        expect(res.statusCode).toBe(422);
        expect(res.json()).toMatchObject({
          error_code: "validation_failed",
          details: [{ field: "status" }],
        });
        expect(res.json().message).toContain("active or suspended");
      }
    });

    it("refuses to remove the plan (plan_id null) with a 422 that says a plan is changed, not removed", async () => {
      const id = await t.createWorkspace({ plan_id: freeTrialPlan });
      const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, { body: { plan_id: null } });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        {
          field: "plan_id",
          message:
            "plan_id cannot be null: a workspace's plan can be changed to another, not removed",
        },
      ]);
    });

    it("changes nothing for an empty body", async () => {
      const id = await t.createWorkspace();
      t.clock.advance(60_000);
      const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, { body: {} });
      expect(res.json().data.updated_at).toBe("2026-11-22T09:30:00Z");
    });

    it("has no delete: DELETE is 405", async () => {
      const id = await t.createWorkspace();
      const res = await t.request("DELETE", `/api/v1/workspaces/${id}`);
      expect(res.statusCode).toBe(405);
      expect((await t.request("GET", `/api/v1/workspaces/${id}`)).statusCode).toBe(200);
    });
  });

  describe("list", () => {
    it("lists workspaces newest first with paging meta", async () => {
      const first = await t.createWorkspace({ name: "First" });
      const second = await t.createWorkspace({ name: "Second" });
      const res = await t.request("GET", "/api/v1/workspaces");
      expect(res.statusCode).toBe(200);
      const body = WorkspaceListResponse.parse(res.json());
      expect(body.data.map((w) => w.id)).toEqual([second, first]);
      expect(body.meta.pagination).toEqual({
        page: 1,
        per_page: 20,
        total: 2,
        total_pages: 1,
        next_cursor: null,
      });
    });

    it("filters by status", async () => {
      const trial = await t.createWorkspace({ plan_id: freeTrialPlan });
      await t.createWorkspace({ plan_id: starterPlan });
      const body = WorkspaceListResponse.parse(
        (await t.request("GET", "/api/v1/workspaces?status=trial")).json(),
      );
      expect(body.data.map((w) => w.id)).toEqual([trial]);
      expect(body.meta.pagination.total).toBe(1);
    });

    it("refuses an unknown status filter with a 422 naming status", async () => {
      const res = await t.request("GET", "/api/v1/workspaces?status=deleted");
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ details: [{ field: "status" }] });
    });

    it("needs workspaces:read", async () => {
      const plansOnly = await t.tokenWith(["plans:read"]);
      const res = await t.request("GET", "/api/v1/workspaces", { token: plansOnly });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toContain("workspaces:read");
    });
  });

  it("lets the trial clock run from the service's clock, not the wall clock", async () => {
    t.clock.advance(10 * dayMs);
    const ws = WorkspaceResponse.parse((await create({ plan_id: freeTrialPlan })).json()).data;
    expect(ws.trial_ends_at).toBe("2026-12-16T09:30:00Z");
  });
});

describe("API document", () => {
  it("documents the workspace and token endpoints with their schemas", async () => {
    const t = await startTestApp();
    try {
      const res = await t.request("GET", "/api/v1/openapi.json", { token: null });
      expect(res.statusCode).toBe(200);
      const doc = res.json() as {
        paths: Record<string, Record<string, unknown>>;
        components: { schemas: Record<string, unknown> };
      };
      expect(Object.keys(doc.paths["/api/v1/workspaces"] ?? {}).sort()).toEqual(["get", "post"]);
      expect(Object.keys(doc.paths["/api/v1/workspaces/{id}"] ?? {}).sort()).toEqual([
        "get",
        "patch",
      ]);
      expect(doc.paths["/api/v1/workspaces/{id}/tokens/{token_id}"]).toHaveProperty("delete");
      expect(doc.components.schemas).toHaveProperty("WorkspaceWithUsage");
      expect(doc.components.schemas).toHaveProperty("Pagination");
    } finally {
      await t.close();
    }
  });
});
