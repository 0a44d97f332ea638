import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scheduleLifecycleSweep } from "../../src/service/jobs/lifecycle-sweep-job.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const dayMs = 86_400_000;

describe("workspace lifecycle", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  const get = async (id: string) =>
    (await t.request("GET", `/api/v1/workspaces/${id}`)).json().data;
  const patch = (id: string, body: unknown) =>
    t.request("PATCH", `/api/v1/workspaces/${id}`, { body });
  const eventsOf = async (id: string) =>
    (await t.request("GET", `/api/v1/events?workspace_id=${id}`)).json().data as {
      type: string;
      data: Record<string, unknown>;
    }[];

  describe("trials", () => {
    it("suspends a workspace when its trial ends, with suspended_reason trial_ended and an event", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      await scheduleLifecycleSweep(t.database.db, t.clock);
      await t.runJobs();
      expect((await get(id)).status).toBe("trial");

      t.clock.advance(14 * dayMs + 60_000);
      await t.runJobs();
      const ws = await get(id);
      expect(ws).toMatchObject({ status: "suspended", suspended_reason: "trial_ended" });
      const [latest] = await eventsOf(id);
      expect(latest).toMatchObject({
        type: "workspace.updated",
        data: { id, status: "suspended", suspended_reason: "trial_ended" },
      });
      // One sweep job exists however often the service starts.
      await scheduleLifecycleSweep(t.database.db, t.clock);
      const sweeps = await t.database.db
        .selectFrom("jobs")
        .select("id")
        .where("kind", "=", "lifecycle.sweep")
        .execute();
      expect(sweeps).toHaveLength(1);
    });

    it("ends a trial when trial_ends_at passes, not up to a minute later", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      const endsAt = new Date((await get(id)).trial_ends_at as string).getTime();
      await scheduleLifecycleSweep(t.database.db, t.clock);
      t.clock.advance(endsAt - t.clock.now().getTime() - 30_000);
      await t.runJobs();
      expect((await get(id)).status).toBe("trial");
      t.clock.advance(30_000);
      await t.runJobs();
      expect(await get(id)).toMatchObject({ status: "suspended", suspended_reason: "trial_ended" });
    });

    it("reactivates a trial-ended workspace through a paid plan", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      await scheduleLifecycleSweep(t.database.db, t.clock);
      t.clock.advance(15 * dayMs);
      await t.runJobs();
      expect((await get(id)).suspended_reason).toBe("trial_ended");

      const paid = await patch(id, { plan_id: "2" });
      expect(paid.statusCode).toBe(200);
      expect(paid.json().data).toMatchObject({
        status: "active",
        suspended_reason: null,
        trial_ends_at: null,
        plan_id: "2",
      });
    });

    it("makes a trial-ended workspace active on status active, as any workspace, trial over", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      await scheduleLifecycleSweep(t.database.db, t.clock);
      t.clock.advance(15 * dayMs);
      await t.runJobs();
      const res = await patch(id, { status: "active" });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        status: "active",
        suspended_reason: null,
        trial_ends_at: null,
        plan_id: "1",
      });
    });

    it("lets only a reseller token end a trial with status active (403 for a workspace token)", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      const created = await t.request("POST", `/api/v1/workspaces/${id}/tokens`, {
        body: { name: "client", scopes: ["workspaces:read", "workspaces:write"] },
      });
      const clientToken = created.json().data.token;
      const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token: clientToken,
        body: { status: "active" },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error_code).toBe("insufficient_scope");
      expect((await get(id)).status).toBe("trial");
    });

    it("lets only a reseller token lift a suspension or suspend; a workspace token may still rename", async () => {
      const id = await t.createWorkspace({ plan_id: "3" });
      const created = await t.request("POST", `/api/v1/workspaces/${id}/tokens`, {
        body: { name: "client", scopes: ["workspaces:read", "workspaces:write"] },
      });
      const clientToken = created.json().data.token;
      expect((await patch(id, { status: "suspended" })).statusCode).toBe(200);
      const lift = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token: clientToken,
        body: { status: "active" },
      });
      expect(lift.statusCode).toBe(403);
      expect(lift.json().message).toContain("cannot change a workspace's status");
      expect((await get(id)).status).toBe("suspended");
      expect((await patch(id, { status: "active" })).statusCode).toBe(200);
      const suspend = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token: clientToken,
        body: { status: "suspended" },
      });
      expect(suspend.statusCode).toBe(403);
      const rename = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token: clientToken,
        body: { name: "Renamed by the client" },
      });
      expect(rename.statusCode).toBe(200);
      expect((await get(id)).status).toBe("active");
    });

    it("refuses a client's own token a rename or a new token while suspended (409), but lets it revoke one", async () => {
      const id = await t.createWorkspace({ plan_id: "3" });
      const create = (token?: string) =>
        t.request("POST", `/api/v1/workspaces/${id}/tokens`, {
          ...(token ? { token } : {}),
          body: { name: "client", scopes: ["workspaces:read", "workspaces:write"] },
        });
      const clientToken = (await create()).json().data.token;
      const spare = (await create()).json().data;
      expect((await patch(id, { status: "suspended" })).statusCode).toBe(200);
      const rename = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token: clientToken,
        body: { name: "Renamed while suspended" },
      });
      expect(rename.statusCode).toBe(409);
      expect(rename.json().error_code).toBe("workspace_not_active");
      const minted = await create(clientToken);
      expect(minted.statusCode).toBe(409);
      expect(minted.json().error_code).toBe("workspace_not_active");
      const revoke = await t.request("DELETE", `/api/v1/workspaces/${id}/tokens/${spare.id}`, {
        token: clientToken,
      });
      expect(revoke.statusCode).toBe(200);
      // The reseller still manages the account while it is suspended.
      expect((await patch(id, { name: "Renamed by the reseller" })).statusCode).toBe(200);
      expect((await create()).statusCode).toBe(201);
    });

    it("ends a running trial on status active, so it is never suspended for it", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      const res = await patch(id, { status: "active" });
      expect(res.json().data).toMatchObject({ status: "active", trial_ends_at: null });
      await scheduleLifecycleSweep(t.database.db, t.clock);
      t.clock.advance(30 * dayMs);
      await t.runJobs();
      expect((await get(id)).status).toBe("active");
    });

    it("ends a running trial when the workspace moves to a paid plan", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      const res = await patch(id, { plan_id: 3 });
      expect(res.json().data).toMatchObject({
        status: "active",
        trial_ends_at: null,
        plan_id: "3",
      });
      await scheduleLifecycleSweep(t.database.db, t.clock);
      t.clock.advance(30 * dayMs);
      await t.runJobs();
      expect((await get(id)).status).toBe("active");
    });
  });

  describe("plan changes", () => {
    it("never leaves a workspace over its new plan's limit when creates race the change", async () => {
      for (let round = 0; round < 3; round++) {
        const id = await t.createWorkspace({ plan_id: "2" });
        const template = (i: number) =>
          t.request("POST", `/api/v1/workspaces/${id}/templates`, {
            body: {
              name: `note_${i}`,
              category: "utility",
              language: "en",
              components: [{ type: "BODY", text: "Your order shipped." }],
            },
          });
        for (let i = 0; i < 3; i++) expect((await template(i)).statusCode).toBe(201);
        // Plan 1 allows 5 templates; six more are created while the workspace moves to it.
        const [change] = await Promise.all([
          patch(id, { plan_id: "1" }),
          ...Array.from({ length: 6 }, (_, i) => template(3 + i)),
        ]);
        const templates = (await get(id)).usage.templates.total;
        if (change.statusCode === 200) expect(templates, `round ${round}`).toBeLessThanOrEqual(5);
        else expect(change.json().error_code).toBe("plan_limit_exceeded");
      }
    });

    it("refuses a plan whose limits are below current usage, naming each feature", async () => {
      const id = await t.createWorkspace({ plan_id: "2" });
      for (let i = 0; i < 6; i++) {
        const res = await t.request("POST", `/api/v1/workspaces/${id}/templates`, {
          body: {
            name: `note_${i}`,
            category: "utility",
            language: "en",
            components: [{ type: "BODY", text: "Your order shipped." }],
          },
        });
        expect(res.statusCode, res.body).toBe(201);
      }
      await t.database.db
        .insertInto("message_counts")
        .values({
          workspace_id: id,
          month: t.clock.now().toISOString().slice(0, 7),
          sent: 1200,
        })
        .execute();
      const res = await patch(id, { plan_id: "1" });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        error_code: "plan_limit_exceeded",
        details: [
          { field: "templates", limit: 5, used: 6 },
          { field: "messages_per_month", limit: 1000, used: 1200 },
        ],
      });
      // Only what the API can free is offered: templates, never contacts.
      expect(res.json().message).toContain(
        "pick a plan whose limits cover this usage, or first delete a draft or rejected template and wait for next month's quota.",
      );
      expect((await get(id)).plan_id).toBe("2");
      expect((await patch(id, { plan_id: "3" })).statusCode).toBe(200);
    });

    it("lets only reseller tokens change a plan", async () => {
      const id = await t.createWorkspace({ plan_id: "1" });
      const token = await t.tokenWith(["workspaces:write"], id);
      const res = await t.request("PATCH", `/api/v1/workspaces/${id}`, {
        token,
        body: { plan_id: "5" },
      });
      expect(res.statusCode).toBe(403);
      expect((await get(id)).plan_id).toBe("1");
    });

    it("refuses an unknown plan with 422 on plan_id", async () => {
      const id = await t.createWorkspace();
      const res = await patch(id, { plan_id: "999" });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0].field).toBe("plan_id");
    });
  });

  describe("archive and restore", () => {
    it("archives: read-only, hidden from lists, its tokens stop working; PATCH active restores it", async () => {
      const id = await t.createWorkspace({ name: "Old client" });
      const other = await t.createWorkspace({ name: "Current client" });
      const wsToken = await t.tokenWith(["contacts:read", "contacts:write"], id);
      expect(
        (await t.request("GET", `/api/v1/workspaces/${id}/contacts`, { token: wsToken }))
          .statusCode,
      ).toBe(200);

      const archived = await t.request("POST", `/api/v1/workspaces/${id}/archive`);
      expect(archived.statusCode).toBe(200);
      expect(archived.json().data.status).toBe("archived");

      const listed = (await t.request("GET", "/api/v1/workspaces")).json().data;
      expect(listed.map((w: { id: string }) => w.id)).toEqual([other]);
      const onlyArchived = (await t.request("GET", "/api/v1/workspaces?status=archived")).json()
        .data;
      expect(onlyArchived.map((w: { id: string }) => w.id)).toEqual([id]);

      const refused = await t.request("GET", `/api/v1/workspaces/${id}/contacts`, {
        token: wsToken,
      });
      expect(refused.statusCode).toBe(401);
      // Its holder (the client) is told the archive is one of the reasons.
      expect(refused.json().message).toContain("or its workspace is archived");
      const write = await t.request("POST", `/api/v1/workspaces/${id}/contacts`, {
        body: { phone: "+4915112345671" },
      });
      expect(write.statusCode).toBe(409);
      expect(write.json().error_code).toBe("workspace_not_active");
      const rename = await patch(id, { name: "New name" });
      expect(rename.statusCode).toBe(409);

      const restored = await patch(id, { status: "active" });
      expect(restored.json().data.status).toBe("active");
      expect(
        (await t.request("GET", `/api/v1/workspaces/${id}/contacts`, { token: wsToken }))
          .statusCode,
      ).toBe(200);
      expect((await eventsOf(id)).map((e) => e.data.status)).toEqual([
        "active",
        "archived",
        "active",
      ]);
    });

    it("restores an archived workspace into suspension with PATCH status suspended: its tokens read, writes wait", async () => {
      const id = await t.createWorkspace();
      const wsToken = await t.tokenWith(["contacts:read", "contacts:write"], id);
      await t.request("POST", `/api/v1/workspaces/${id}/archive`);
      const suspended = await patch(id, { status: "suspended" });
      expect(suspended.statusCode, suspended.body).toBe(200);
      expect(suspended.json().data.status).toBe("suspended");
      const contacts = `/api/v1/workspaces/${id}/contacts`;
      expect((await t.request("GET", contacts, { token: wsToken })).statusCode).toBe(200);
      const write = await t.request("POST", contacts, { body: { phone: "+4915112345672" } });
      expect(write.json().error_code).toBe("workspace_not_active");
    });

    it("lets only reseller tokens archive", async () => {
      const id = await t.createWorkspace();
      const wsToken = await t.tokenWith(["workspaces:write"], id);
      const res = await t.request("POST", `/api/v1/workspaces/${id}/archive`, { token: wsToken });
      expect(res.statusCode).toBe(403);
    });
  });

  describe("monthly usage", () => {
    it("reports each workspace's contacts, templates and plan with totals", async () => {
      const id = await t.createWorkspace({ name: "Acme", plan_id: "2" });
      await t.request("POST", `/api/v1/workspaces/${id}/contacts`, {
        body: { phone: "+4915112345671", opt_in_status: "opted_in" },
      });
      const res = await t.request("GET", "/api/v1/usage?month=2026-11");
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.data).toEqual([
        expect.objectContaining({
          workspace_id: id,
          workspace_name: "Acme",
          contacts: 1,
          active_templates: 0,
          plan: expect.objectContaining({ id: 2 }),
        }),
      ]);
      expect(body.meta).toMatchObject({ month: "2026-11", totals: { workspaces: 1, contacts: 1 } });
      const before = (await t.request("GET", "/api/v1/usage?month=2026-10")).json();
      expect(before.data).toEqual([]);
      expect((await t.request("GET", "/api/v1/usage?month=2026-13")).statusCode).toBe(422);
    });

    it("refuses a month still to come with a 422 naming month, rather than this month's counts", async () => {
      const res = await t.request("GET", "/api/v1/usage?month=2026-12");
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        { field: "month", message: "is still to come; the latest month with usage is 2026-11" },
      ]);
    });

    it("counts in a month's report only the templates approved by its end", async () => {
      const id = await t.createWorkspace({ name: "Acme", plan_id: "2" });
      t.clock.advance(10 * 24 * 3_600_000); // into December
      const created = await t.request("POST", `/api/v1/workspaces/${id}/templates`, {
        body: {
          name: "winter_news",
          category: "marketing",
          language: "en_US",
          components: [{ type: "BODY", text: "Our winter collection is here." }],
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      t.clock.advance(60_000);
      await t.runJobs();
      const template = await t.request(
        "GET",
        `/api/v1/workspaces/${id}/templates/${created.json().data.id}`,
      );
      expect(template.json().data.status).toBe("approved");
      const usage = async (month: string) =>
        (await t.request("GET", `/api/v1/usage?month=${month}`)).json();
      expect((await usage("2026-11")).data[0]).toMatchObject({ active_templates: 0 });
      expect((await usage("2026-11")).meta.totals).toMatchObject({ active_templates: 0 });
      expect((await usage("2026-12")).data[0]).toMatchObject({ active_templates: 1 });
    });

    it("counts a template in the months it was approved at their end, not in one it was paused through", async () => {
      const id = await t.createWorkspace({ name: "Acme", plan_id: "2" });
      const created = await t.request("POST", `/api/v1/workspaces/${id}/templates`, {
        body: {
          name: "autumn_news",
          category: "marketing",
          language: "en_US",
          components: [{ type: "BODY", text: "Our autumn collection is here." }],
        },
      });
      const templateId = created.json().data.id;
      t.clock.advance(60_000);
      await t.runJobs(); // approved in November
      const review = (decision: string) =>
        t.request("POST", `/api/v1/sandbox/templates/${templateId}/review`, { body: { decision } });
      t.clock.advance(15 * 24 * 3_600_000); // December
      expect((await review("pause")).statusCode).toBe(200);
      t.clock.advance(31 * 24 * 3_600_000); // January
      expect((await review("approve")).json().data.status).toBe("approved");
      const count = async (month: string) =>
        (await t.request("GET", `/api/v1/usage?month=${month}`)).json().data[0].active_templates;
      expect(await count("2026-11")).toBe(1);
      expect(await count("2026-12")).toBe(0);
      expect(await count("2027-01")).toBe(1);
    });

    it("counts templates an older version approved or paused during an upgrade, from the template itself", async () => {
      const id = await t.createWorkspace({ name: "Acme", plan_id: "2" });
      const create = async (name: string) =>
        (
          await t.request("POST", `/api/v1/workspaces/${id}/templates`, {
            body: {
              name,
              category: "marketing",
              language: "en_US",
              components: [{ type: "BODY", text: "News from us." }],
            },
          })
        ).json().data.id as string;
      const approvedHere = await create("approved_here");
      t.clock.advance(60_000);
      await t.runJobs(); // approved by this version: a period is recorded
      const approvedThere = await create("approved_there");
      // An instance of the version before approves one and pauses the other, writing no period.
      const now = t.clock.now().toISOString();
      const db = t.database.db;
      const count = async () =>
        (await t.request("GET", "/api/v1/usage")).json().data[0].active_templates;
      await db
        .updateTable("templates")
        .set({ status: "approved", reviewed_at: now, updated_at: now })
        .where("id", "=", approvedThere)
        .execute();
      expect(await count()).toBe(2);
      await db
        .updateTable("templates")
        .set({ status: "paused", reviewed_at: now, updated_at: now })
        .where("id", "=", approvedHere)
        .execute();
      expect(await count()).toBe(1);
    });

    it("pages the report like any list, newest workspace first, with totals over every page", async () => {
      const ids: string[] = [];
      for (const name of ["One", "Two", "Three"]) {
        ids.push(await t.createWorkspace({ name }));
        t.clock.advance(1000);
      }
      // The oldest workspace, on the second page, has the one contact: the totals still say so.
      await t.request("POST", `/api/v1/workspaces/${ids[0]}/contacts`, {
        body: { phone: "+4915112345671", opt_in_status: "opted_in" },
      });
      const first = (await t.request("GET", "/api/v1/usage?month=2026-11&per_page=2")).json();
      expect(first.data.map((w: { workspace_id: string }) => w.workspace_id)).toEqual([
        ids[2],
        ids[1],
      ]);
      expect(first.meta.pagination).toMatchObject({
        page: 1,
        per_page: 2,
        total: 3,
        total_pages: 2,
      });
      expect(first.meta.totals).toMatchObject({ workspaces: 3, contacts: 1 });
      const cursor = first.meta.pagination.next_cursor;
      const next = (
        await t.request("GET", `/api/v1/usage?month=2026-11&per_page=2&cursor=${cursor}`)
      ).json();
      expect(next.data).toEqual([expect.objectContaining({ workspace_id: ids[0], contacts: 1 })]);
      expect(next.meta.pagination.next_cursor).toBeNull();
      expect(next.meta.totals.workspaces).toBe(3);
      const tooMany = await t.request("GET", "/api/v1/usage?per_page=101");
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().details[0].field).toBe("per_page");
    });
  });
});
