import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DeletedTemplateResponse,
  type Template,
  TemplateListResponse,
  TemplateResponse,
} from "../../src/contract/templates.js";
import { WorkspaceWithUsageResponse } from "../../src/contract/workspaces.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const reviewDelayMs = 5000;

/** A valid utility template; `over` replaces top-level fields. */
function orderUpdate(over: Record<string, unknown> = {}) {
  return {
    name: "order_update",
    category: "utility",
    language: "en_US",
    components: [
      {
        type: "HEADER",
        format: "TEXT",
        text: "Order {{1}} shipped",
        example: { header_text: ["A-1042"] },
      },
      {
        type: "BODY",
        text: "Hi {{1}}, your order {{2}} has shipped.",
        example: { body_text: [["Ada", "A-1042"]] },
      },
      { type: "FOOTER", text: "Acme Shop" },
      {
        type: "BUTTONS",
        buttons: [
          {
            type: "URL",
            text: "Track order",
            url: "https://shop.example/o/{{1}}",
            example: ["A-1042"],
          },
          { type: "QUICK_REPLY", text: "Thanks" },
        ],
      },
    ],
    ...over,
  };
}

function withBody(text: string, over: Record<string, unknown> = {}) {
  return {
    name: "note",
    category: "utility",
    language: "en",
    components: [{ type: "BODY", text }],
    ...over,
  };
}

describe("templates", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  const base = () => `/api/v1/workspaces/${ws}/templates`;

  async function create(body: unknown, options: { token?: string; workspace?: string } = {}) {
    return t.request("POST", `/api/v1/workspaces/${options.workspace ?? ws}/templates`, {
      body,
      ...(options.token ? { token: options.token } : {}),
    });
  }

  async function created(body: unknown): Promise<Template> {
    const res = await create(body);
    expect(res.statusCode, res.body).toBe(201);
    return TemplateResponse.parse(res.json()).data;
  }

  async function get(id: string): Promise<Template> {
    const res = await t.request("GET", `${base()}/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return TemplateResponse.parse(res.json()).data;
  }

  async function review(id: string, body: Record<string, unknown>, token?: string) {
    return t.request("POST", `/api/v1/sandbox/templates/${id}/review`, {
      body,
      ...(token ? { token } : {}),
    });
  }

  /** Moves past the review delay and runs the due reviews. */
  async function afterReview(): Promise<number> {
    t.clock.advance(reviewDelayMs);
    return t.runJobs();
  }

  describe("create and review", () => {
    it("stores a template as pending and the sandbox approves it once the review delay has passed", async () => {
      const tpl = await created(orderUpdate());
      expect(tpl).toMatchObject({
        name: "order_update",
        category: "utility",
        language: "en_US",
        status: "pending",
        workspace_id: ws,
        rejection_reason: null,
        submitted_at: "2026-11-22T09:30:00Z",
        reviewed_at: null,
      });
      expect(tpl.id).toMatch(/^tpl_/);
      expect(tpl.components).toEqual(orderUpdate().components);

      t.clock.advance(reviewDelayMs - 1);
      expect(await t.runJobs()).toBe(0);
      expect((await get(tpl.id)).status).toBe("pending");

      t.clock.advance(1);
      expect(await t.runJobs()).toBe(1);
      const reviewed = await get(tpl.id);
      expect(reviewed).toMatchObject({
        status: "approved",
        rejection_reason: null,
        reviewed_at: "2026-11-22T09:30:05Z",
      });
    });

    it("normalises WhatsApp's upper-case category and lower-case types", async () => {
      const tpl = await created({
        ...withBody("Your parcel is on its way."),
        category: "UTILITY",
        components: [{ type: "body", text: "Your parcel is on its way." }],
      });
      expect(tpl.category).toBe("utility");
      expect(tpl.components).toEqual([{ type: "BODY", text: "Your parcel is on its way." }]);
    });

    it("rejects marketing wording in a utility template as INCORRECT_CATEGORY, naming where", async () => {
      const tpl = await created(withBody("Your order shipped. Enjoy 20% off your next purchase!"));
      await afterReview();
      const reviewed = await get(tpl.id);
      expect(reviewed.status).toBe("rejected");
      expect(reviewed.rejection_reason).toBe("INCORRECT_CATEGORY");
      expect(reviewed.rejection_detail).toContain("components.0.text");
      expect(reviewed.rejection_detail).toContain("% off");
    });

    it("approves the same wording in a marketing template", async () => {
      const tpl = await created(
        withBody("Enjoy 20% off your next purchase this week!", { category: "marketing" }),
      );
      await afterReview();
      expect((await get(tpl.id)).status).toBe("approved");
    });

    it("rejects a URL shortener in a button or the body as INVALID_FORMAT", async () => {
      const inButton = await created(
        orderUpdate({
          name: "short_button",
          components: [
            { type: "BODY", text: "Your order has shipped." },
            {
              type: "BUTTONS",
              buttons: [{ type: "URL", text: "Track", url: "https://bit.ly/abc" }],
            },
          ],
        }),
      );
      const inBody = await created(
        withBody("Track it at tinyurl.com/xyz today.", { name: "short_body" }),
      );
      await afterReview();
      const button = await get(inButton.id);
      expect(button).toMatchObject({ status: "rejected", rejection_reason: "INVALID_FORMAT" });
      expect(button.rejection_detail).toContain("components.1.buttons.0.url: 'bit.ly'");
      expect(await get(inBody.id)).toMatchObject({
        status: "rejected",
        rejection_reason: "INVALID_FORMAT",
      });
    });

    it("rejects a template that asks for secrets as SCAM", async () => {
      const tpl = await created(withBody("Please reply with your card number to confirm."));
      await afterReview();
      expect(await get(tpl.id)).toMatchObject({ status: "rejected", rejection_reason: "SCAM" });
    });

    it("refuses a template that breaks formal rules with a 422 naming each component and rule, storing nothing", async () => {
      const body = orderUpdate();
      (body.components[3] as { buttons: { text: string }[] }).buttons[1] = {
        type: "QUICK_REPLY",
        text: "This text is far too long for a button",
      } as never;
      const res = await create({ ...body, name: "Order Update" });
      expect(res.statusCode).toBe(422);
      const error = res.json();
      expect(error).toMatchObject({ status: "error", error_code: "validation_failed" });
      expect(error.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: "name", rule: "name_format" }),
          expect.objectContaining({
            field: "components.3.buttons.1.text",
            rule: "button_text_length",
          }),
        ]),
      );
      expect(error.message).toContain("components.3.buttons.1.text");
      expect(await t.database.db.selectFrom("templates").selectAll().execute()).toEqual([]);
      expect(await t.database.db.selectFrom("jobs").selectAll().execute()).toEqual([]);
    });

    it("refuses wrong JSON types and unknown fields with a 422, never a 500", async () => {
      for (const body of [
        { ...orderUpdate(), name: 42 },
        { ...orderUpdate(), components: "BODY" },
        { ...orderUpdate(), extra: true },
        { ...orderUpdate(), components: [null, 3, "x"] },
        {},
      ]) {
        const res = await create(body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().details.length).toBeGreaterThan(0);
      }
    });

    it("names the rule breaks along with a wrong JSON type in one 422, each field once", async () => {
      const res = await create({
        name: "BAD NAME",
        category: "promo",
        language: "en_US",
        components: "x",
      });
      expect(res.statusCode).toBe(422);
      const fields = res.json().details.map((d: { field: string }) => d.field);
      expect(fields).toEqual(["components", "name", "category"]);
      expect(res.json().details[0].message).toBe("components must be an array");
    });

    it("refuses a second template of the same name and language, but takes another language", async () => {
      await created(orderUpdate());
      const again = await create(orderUpdate());
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error_code: "template_exists" });
      expect(again.json().message).toContain("order_update");
      const german = await created(orderUpdate({ language: "de" }));
      expect(german.status).toBe("pending");
    });

    it("refuses a new template in a suspended workspace", async () => {
      await t.request("PATCH", `/api/v1/workspaces/${ws}`, { body: { status: "suspended" } });
      const res = await create(orderUpdate());
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error_code: "workspace_not_active" });
    });

    it("replays a create retried with the same Idempotency-Key instead of refusing it", async () => {
      const headers = { "idempotency-key": "create-order-update" };
      const first = await t.request("POST", base(), { body: orderUpdate(), headers });
      const second = await t.request("POST", base(), { body: orderUpdate(), headers });
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      expect(second.headers["idempotent-replayed"]).toBe("true");
      expect(second.json().data.id).toBe(first.json().data.id);
    });
  });

  describe("drafts", () => {
    it("stores a draft without review, and submits it later", async () => {
      const draft = await created(orderUpdate({ draft: true }));
      expect(draft).toMatchObject({ status: "draft", submitted_at: null });
      expect(await afterReview()).toBe(0);

      const res = await t.request("POST", `${base()}/${draft.id}/submit`);
      expect(res.statusCode).toBe(200);
      expect(TemplateResponse.parse(res.json()).data).toMatchObject({
        status: "pending",
        submitted_at: "2026-11-22T09:30:05Z",
      });
      expect(await afterReview()).toBe(1);
      expect((await get(draft.id)).status).toBe("approved");
    });

    it("refuses to submit what is not a draft", async () => {
      const tpl = await created(orderUpdate());
      const res = await t.request("POST", `${base()}/${tpl.id}/submit`);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error_code: "template_not_draft" });
      expect(res.json().message).toContain("pending");
    });

    it("checks a draft against the rules too", async () => {
      const res = await create({ ...withBody("{{1}} hi"), draft: true });
      expect(res.statusCode).toBe(422);
    });
  });

  describe("delete", () => {
    it("deletes a draft and a rejected template, freeing the name", async () => {
      const draft = await created(orderUpdate({ draft: true }));
      const rejected = await created(withBody("Flash sale today only!", { name: "promo" }));
      await afterReview();
      expect((await get(rejected.id)).status).toBe("rejected");
      for (const tpl of [draft, rejected]) {
        const res = await t.request("DELETE", `${base()}/${tpl.id}`);
        expect(res.statusCode).toBe(200);
        expect(DeletedTemplateResponse.parse(res.json()).data).toEqual({
          id: tpl.id,
          name: tpl.name,
          language: tpl.language,
          deleted: true,
        });
        expect((await t.request("GET", `${base()}/${tpl.id}`)).statusCode).toBe(404);
      }
      await created(orderUpdate());
    });

    it("refuses to delete a pending, approved or paused template with 409 template_not_deletable", async () => {
      const pending = await created(orderUpdate());
      const approved = await created(orderUpdate({ language: "de" }));
      const paused = await created(orderUpdate({ language: "fr" }));
      await review(approved.id, { decision: "approve" });
      await review(paused.id, { decision: "approve" });
      await review(paused.id, { decision: "pause" });
      for (const [tpl, status] of [
        [pending, "pending"],
        [approved, "approved"],
        [paused, "paused"],
      ] as const) {
        const res = await t.request("DELETE", `${base()}/${tpl.id}`);
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({ error_code: "template_not_deletable" });
        expect(res.json().message).toContain(status);
        expect((await get(tpl.id)).status).toBe(status);
      }
    });

    it("answers 404 for an unknown template", async () => {
      const res = await t.request("DELETE", `${base()}/tpl_nope`);
      expect(res.statusCode).toBe(404);
    });
  });

  describe("sandbox operator controls", () => {
    it("approves at once, and the queued review then leaves the decision alone", async () => {
      const tpl = await created(withBody("Flash sale today only!"));
      const res = await review(tpl.id, { decision: "approve" });
      expect(res.statusCode).toBe(200);
      expect(TemplateResponse.parse(res.json()).data.status).toBe("approved");
      expect(await afterReview()).toBe(1);
      expect((await get(tpl.id)).status).toBe("approved");
    });

    it("rejects with a reason from the operator's list and keeps it on the record", async () => {
      const tpl = await created(orderUpdate());
      const res = await review(tpl.id, {
        decision: "reject",
        reason: "TAG_CONTENT_MISMATCH",
        detail: "The body does not match the category.",
      });
      expect(res.statusCode).toBe(200);
      expect(await get(tpl.id)).toMatchObject({
        status: "rejected",
        rejection_reason: "TAG_CONTENT_MISMATCH",
        rejection_detail: "The body does not match the category.",
        reviewed_at: "2026-11-22T09:30:00Z",
      });
    });

    it("pauses an approved template and approves it again", async () => {
      const tpl = await created(orderUpdate());
      await afterReview();
      expect(
        TemplateResponse.parse((await review(tpl.id, { decision: "pause" })).json()).data.status,
      ).toBe("paused");
      expect(
        TemplateResponse.parse((await review(tpl.id, { decision: "approve" })).json()).data.status,
      ).toBe("approved");
    });

    it("refuses decisions the status does not allow with 409 template_not_reviewable", async () => {
      const draft = await created(orderUpdate({ draft: true }));
      const approved = await created(orderUpdate({ language: "de" }));
      await review(approved.id, { decision: "approve" });
      for (const [id, body] of [
        [draft.id, { decision: "approve" }],
        [approved.id, { decision: "reject", reason: "SCAM" }],
        [draft.id, { decision: "pause" }],
      ] as const) {
        const res = await review(id, body);
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({ error_code: "template_not_reviewable" });
      }
    });

    it("needs a reason from the list to reject, and takes one only then", async () => {
      const tpl = await created(orderUpdate());
      const missing = await review(tpl.id, { decision: "reject" });
      expect(missing.statusCode).toBe(422);
      expect(missing.json().details).toEqual([expect.objectContaining({ field: "reason" })]);
      const unknown = await review(tpl.id, { decision: "reject", reason: "UGLY" });
      expect(unknown.statusCode).toBe(422);
      expect(unknown.json().message).toContain("ABUSIVE_CONTENT");
      const extra = await review(tpl.id, { decision: "approve", reason: "SCAM" });
      expect(extra.statusCode).toBe(422);
      const badDecision = await review(tpl.id, { decision: "maybe" });
      expect(badDecision.statusCode).toBe(422);
      expect((await get(tpl.id)).status).toBe("pending");
    });

    it("answers 404 for another reseller's template or an unknown one", async () => {
      const tpl = await created(orderUpdate());
      const other = await t.otherReseller();
      expect((await review(tpl.id, { decision: "approve" }, other)).statusCode).toBe(404);
      expect((await review("tpl_unknown", { decision: "approve" })).statusCode).toBe(404);
      expect((await get(tpl.id)).status).toBe("pending");
    });
  });

  describe("list and get", () => {
    it("lists newest first with status, category and name filters and cursor paging", async () => {
      const a = await created(orderUpdate());
      const b = await created(
        withBody("Big sale this weekend!", { category: "marketing", name: "weekend" }),
      );
      const c = await created(orderUpdate({ draft: true, language: "de" }));
      await afterReview();

      const all = TemplateListResponse.parse((await t.request("GET", base())).json());
      expect(all.data.map((x) => x.id)).toEqual([c.id, b.id, a.id]);
      expect(all.meta.pagination).toMatchObject({
        page: 1,
        per_page: 20,
        total: 3,
        total_pages: 1,
      });

      const drafts = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?status=draft`)).json(),
      );
      expect(drafts.data.map((x) => x.id)).toEqual([c.id]);
      const marketing = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?category=marketing`)).json(),
      );
      expect(marketing.data.map((x) => x.id)).toEqual([b.id]);
      const byName = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?name=order_update&language=de`)).json(),
      );
      expect(byName.data.map((x) => x.id)).toEqual([c.id]);

      const first = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?per_page=2`)).json(),
      );
      expect(first.data).toHaveLength(2);
      const cursor = first.meta.pagination.next_cursor;
      expect(cursor).not.toBeNull();
      const second = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?per_page=2&cursor=${cursor}`)).json(),
      );
      expect(second.data.map((x) => x.id)).toEqual([a.id]);
    });

    it("takes the status and category filters in any case, as a template's create does", async () => {
      const a = await created(orderUpdate({ draft: true }));
      await created(withBody("Flash sale!", { name: "promo" }));
      const found = TemplateListResponse.parse(
        (await t.request("GET", `${base()}?status=DRAFT&category=Utility`)).json(),
      );
      expect(found.data.map((x) => x.id)).toEqual([a.id]);
    });

    it("refuses unknown filter values with a 422 naming the field", async () => {
      for (const query of ["status=gone", "category=promo", "per_page=101"]) {
        const res = await t.request("GET", `${base()}?${query}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().details[0].field).toBe(query.split("=")[0]);
      }
    });

    it("shows template counts per status in the workspace's usage", async () => {
      await created(orderUpdate());
      await created(orderUpdate({ draft: true, language: "de" }));
      await created(withBody("Flash sale!", { name: "promo" }));
      await afterReview();
      const res = await t.request("GET", `/api/v1/workspaces/${ws}`);
      const usage = WorkspaceWithUsageResponse.parse(res.json()).data.usage;
      expect(usage.templates).toEqual({
        total: 3,
        draft: 1,
        pending: 0,
        approved: 1,
        rejected: 1,
        paused: 0,
        disabled: 0,
      });
    });
  });

  describe("plan limit", () => {
    it("enforces the plan's templates limit, counting drafts, and frees a unit on delete", async () => {
      const trial = await t.createWorkspace({ plan_id: "1" });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await create(orderUpdate({ name: `t_${i}`, draft: true }), {
          workspace: trial,
        });
        expect(res.statusCode).toBe(201);
        ids.push(res.json().data.id);
      }
      const over = await create(orderUpdate({ name: "t_5" }), { workspace: trial });
      expect(over.statusCode).toBe(409);
      expect(over.json()).toMatchObject({
        error_code: "plan_limit_exceeded",
        details: [{ field: "templates", limit: 5, used: 5 }],
      });
      expect(over.json().message).toContain("delete a draft or rejected template");
      await t.request("DELETE", `/api/v1/workspaces/${trial}/templates/${ids[0]}`);
      expect((await create(orderUpdate({ name: "t_5" }), { workspace: trial })).statusCode).toBe(
        201,
      );
      const usage = WorkspaceWithUsageResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${trial}`)).json(),
      ).data.usage;
      expect(usage.limits.find((l) => l.key === "templates")).toMatchObject({ limit: 5, used: 5 });
    });
  });

  describe("access", () => {
    it("hides another reseller's templates behind 404", async () => {
      const tpl = await created(orderUpdate());
      const other = await t.otherReseller();
      for (const [method, url] of [
        ["GET", base()],
        ["GET", `${base()}/${tpl.id}`],
        ["DELETE", `${base()}/${tpl.id}`],
        ["POST", `${base()}/${tpl.id}/submit`],
      ] as const) {
        const res = await t.request(method, url, { token: other });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
      expect((await create(orderUpdate({ name: "x" }), { token: other })).statusCode).toBe(404);
    });

    it("lets a workspace token reach only its own workspace's templates", async () => {
      const tpl = await created(orderUpdate());
      const otherWs = await t.createWorkspace({ name: "Other" });
      const token = await t.tokenWith(["templates:read", "templates:write"], ws);
      expect((await t.request("GET", `${base()}/${tpl.id}`, { token })).statusCode).toBe(200);
      expect(
        (await t.request("GET", `/api/v1/workspaces/${otherWs}/templates`, { token })).statusCode,
      ).toBe(404);
    });

    it("needs templates:read to list and templates:write to create, naming the scope", async () => {
      const readOnly = await t.tokenWith(["templates:read"]);
      expect((await t.request("GET", base(), { token: readOnly })).statusCode).toBe(200);
      const res = await create(orderUpdate(), { token: readOnly });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toContain("templates:write");
      const none = await t.tokenWith(["workspaces:read"]);
      expect((await t.request("GET", base(), { token: none })).statusCode).toBe(403);
    });
  });

  it("documents the template endpoints in the OpenAPI document", async () => {
    const doc = (await t.request("GET", "/api/v1/openapi.json", { token: null })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/workspaces/{id}/templates",
        "/api/v1/workspaces/{id}/templates/{template_id}",
        "/api/v1/workspaces/{id}/templates/{template_id}/submit",
        "/api/v1/sandbox/templates/{template_id}/review",
      ]),
    );
  });
});
