import { type Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ContactListResponse,
  ContactResponse,
  TagListResponse,
} from "../../src/contract/contacts.js";
import { WorkspaceWithUsageResponse } from "../../src/contract/workspaces.js";
import { up as tagSpellingsOnce } from "../../src/service/db/migrations/0019-tag-spellings-once.js";
import { contactsLimitCatalogue } from "../helpers/plans-file.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const anna = "+4915112345678";
const ben = "+4915223456789";
const carl = "+14155550123";

describe("contacts", () => {
  let t: TestApp;
  let ws: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
  });
  afterEach(() => t.close());

  const path = (rest = "") => `/api/v1/workspaces/${ws}/contacts${rest}`;
  const upsert = (body: Record<string, unknown>, token?: string) =>
    t.request("POST", path(), { body, ...(token ? { token } : {}) });
  const patch = (id: string, body: Record<string, unknown>) =>
    t.request("PATCH", path(`/${id}`), { body });
  const list = async (query = "") => {
    const res = await t.request("GET", `${path()}${query}`);
    expect(res.statusCode).toBe(200);
    return ContactListResponse.parse(res.json());
  };

  describe("upsert", () => {
    it("creates a contact with 201 and returns the whole record", async () => {
      const res = await upsert({
        phone: anna,
        first_name: "Anna",
        last_name: "Schmidt",
        email: "anna@example.com",
        tags: ["vip", "newsletter"],
        custom_fields: { city: "Berlin" },
      });
      expect(res.statusCode).toBe(201);
      const contact = ContactResponse.parse(res.json()).data;
      expect(contact).toMatchObject({
        phone: anna,
        first_name: "Anna",
        last_name: "Schmidt",
        email: "anna@example.com",
        tags: ["vip", "newsletter"],
        custom_fields: { city: "Berlin" },
        opt_in_status: "not_set",
        opt_in_source: null,
        opted_in_at: null,
        opted_out_at: null,
        created_at: "2026-11-22T09:30:00Z",
      });
      expect(contact.id).toMatch(/^ct_/);
    });

    it("updates the contact with the same phone with 200: given fields overwrite, tags replace, custom fields merge", async () => {
      const first = ContactResponse.parse(
        (
          await upsert({
            phone: anna,
            first_name: "Anna",
            email: "anna@example.com",
            tags: ["vip"],
            custom_fields: { city: "Berlin", shoe: "38" },
          })
        ).json(),
      ).data;
      t.clock.advance(60_000);
      const res = await upsert({
        phone: anna,
        first_name: "Annie",
        tags: ["returning"],
        custom_fields: { city: "Hamburg", shoe: null },
      });
      expect(res.statusCode).toBe(200);
      const second = ContactResponse.parse(res.json()).data;
      expect(second).toMatchObject({
        id: first.id,
        first_name: "Annie",
        email: "anna@example.com",
        tags: ["returning"],
        custom_fields: { city: "Hamburg" },
        updated_at: "2026-11-22T09:31:00Z",
        created_at: "2026-11-22T09:30:00Z",
      });
      expect((await list()).meta.pagination.total).toBe(1);
    });

    it("never changes an existing contact's consent when opt_in_status is omitted", async () => {
      await upsert({ phone: anna, opt_in_status: "opted_in" });
      const id = (await list()).data[0]?.id ?? "";
      await patch(id, { opt_in_status: "opted_out" });
      const res = await upsert({ phone: anna, first_name: "Anna" });
      expect(res.statusCode).toBe(200);
      expect(ContactResponse.parse(res.json()).data.opt_in_status).toBe("opted_out");
    });

    it("records when and from where a contact opted in", async () => {
      const res = await upsert({
        phone: anna,
        opt_in_status: "opted_in",
        opt_in_source: "checkout form",
      });
      expect(ContactResponse.parse(res.json()).data).toMatchObject({
        opt_in_status: "opted_in",
        opt_in_source: "checkout form",
        opted_in_at: "2026-11-22T09:30:00Z",
      });
      const dated = await upsert({
        phone: ben,
        opt_in_status: "opted_in",
        opted_in_at: "2026-01-05T10:00:00+01:00",
      });
      expect(ContactResponse.parse(dated.json()).data).toMatchObject({
        opt_in_source: "api",
        opted_in_at: "2026-01-05T09:00:00Z",
      });
    });

    it("refuses opted_out on upsert with a 422 that says how to record an opt-out", async () => {
      const res = await upsert({ phone: anna, opt_in_status: "opted_out" });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0]).toMatchObject({ field: "opt_in_status" });
      expect(res.json().message).toContain("PATCH");
    });

    it.each([
      ["0151 12345678", "not in E.164"],
      ["+49 151 12345678", "not in E.164"],
      ["+4900000000", "not a valid number"],
      ["+99912345678", "not a phone number"],
      ["4915112345678", "not in E.164"],
    ])("refuses the phone %s with a 422 that shows the expected form", async (phone, words) => {
      const res = await upsert({ phone });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ error_code: "validation_failed" });
      expect(res.json().details[0].field).toBe("phone");
      expect(res.json().message).toContain(words);
      expect(res.json().message).toContain("+4915112345678");
    });

    it("takes custom fields with arbitrary keys, and refuses only keys that cannot be told apart or used", async () => {
      const fields = { "Plan Name": "gold", Größe: "L", "e-mail (work)": "a@b.test", 顧客: "yes" };
      const res = await upsert({ phone: anna, custom_fields: fields });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.custom_fields).toEqual(fields);
      for (const key of [" city", "city ", "a\u0007b", "x".repeat(65)]) {
        const refused = await upsert({ phone: anna, custom_fields: { [key]: "x" } });
        expect(refused.statusCode, JSON.stringify(key)).toBe(422);
        expect(refused.json().details[0].field).toBe(`custom_fields.${key}`);
      }
    });

    it("names each bad field in the details", async () => {
      const res = await upsert({
        phone: anna,
        email: "not-an-email",
        tags: ["ok", "a,b"],
        custom_fields: { "bad key ": "x" },
        colour: "red",
      });
      expect(res.statusCode).toBe(422);
      const fields = (res.json().details as { field: string }[]).map((d) => d.field);
      expect(fields).toEqual(
        expect.arrayContaining(["email", "tags", "custom_fields.bad key ", "colour"]),
      );
    });

    it("names every bad field in one answer, with a character no text has or a bad custom value among them", async () => {
      const res = await upsert({
        phone: anna,
        first_name: "a\u0000b",
        email: "not-an-email",
        custom_fields: { "": "x", n: 1 },
      });
      expect(res.statusCode).toBe(422);
      const fields = (res.json().details as { field: string }[]).map((d) => d.field);
      expect(fields).toEqual(
        expect.arrayContaining(["first_name", "email", "custom_fields.", "custom_fields.n"]),
      );
      expect(fields).toHaveLength(4);
    });

    it("names an invisible character in an email, a right-to-left override included, but takes the joiners Persian needs", async () => {
      const persian = await upsert({
        phone: anna,
        email: "\u0639\u0644\u06CC\u200C\u0631\u0636\u0627@example.com",
      });
      expect(persian.statusCode, persian.body).toBe(201);
      const res = await upsert({ phone: anna, email: "\u202Emoc.live@a.test" });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        {
          field: "email",
          message:
            "email holds an invisible character (U+202E) that no address has: type the address again",
        },
      ]);
    });

    it("names a bad phone together with the other bad fields, in one answer", async () => {
      const res = await upsert({ phone: "+4915112345", email: "not-an-email" });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        { field: "phone", message: expect.stringContaining("not a valid number for DE") },
        { field: "email", message: expect.any(String) },
      ]);
    });

    it("refuses a consent time in the future", async () => {
      const res = await upsert({
        phone: anna,
        opt_in_status: "opted_in",
        opted_in_at: "2027-01-01T00:00:00Z",
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0].field).toBe("opted_in_at");
    });

    it("refuses a consent time before 1970 (year 0 is a typo)", async () => {
      const res = await upsert({
        phone: anna,
        opt_in_status: "opted_in",
        opt_in_source: "form",
        opted_in_at: "0000-01-01T00:00:00Z",
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().details).toEqual([
        { field: "opted_in_at", message: expect.stringContaining("before 1970") },
      ]);
    });

    it("refuses a consent date that does not exist (30 February, 24:00) instead of moving it", async () => {
      for (const when of ["2026-02-30T10:00:00Z", "2025-04-31T08:00:00Z", "2026-01-05T24:00:00Z"]) {
        const res = await upsert({ phone: anna, opt_in_status: "opted_in", opted_in_at: when });
        expect(res.statusCode, when).toBe(422);
        expect(res.json().details[0].field).toBe("opted_in_at");
      }
      const leap = await upsert({
        phone: anna,
        opt_in_status: "opted_in",
        opted_in_at: "2024-02-29T10:00:00Z",
      });
      expect(leap.json().data.opted_in_at).toBe("2024-02-29T10:00:00Z");
    });

    it("keeps the record of a withdrawn consent unless the change re-subscribes the contact", async () => {
      const id = (await upsert({ phone: anna, opt_in_status: "opted_in" })).json().data.id;
      await patch(id, { opt_in_status: "opted_out" });
      const rewrite = await patch(id, {
        opted_in_at: "2025-06-01T00:00:00Z",
        opt_in_source: "paper form",
      });
      expect(rewrite.statusCode).toBe(422);
      expect(rewrite.json().details[0].message).toContain("consent this contact withdrew");
      // An upsert (a CRM's sync) leaves the record as it is, says so, and applies the rest.
      const synced = await upsert({ phone: anna, first_name: "Anne", opt_in_source: "crm sync" });
      expect(synced.statusCode).toBe(200);
      expect(synced.json().data).toMatchObject({ first_name: "Anne", opt_in_status: "opted_out" });
      expect(synced.json().data.opt_in_source).not.toBe("crm sync");
      expect(synced.json().meta.notices).toEqual([
        { field: "opt_in_status", message: expect.stringContaining("stays opted out") },
      ]);
      // Nor can an empty source erase it.
      const emptied = await upsert({ phone: anna, opt_in_source: "" });
      expect(emptied.json().data.opt_in_source).toBe("api");
      expect((await patch(id, { opt_in_source: "" })).statusCode).toBe(422);
      const again = await patch(id, { opt_in_status: "opted_in", opt_in_source: "paper form" });
      expect(again.json().data).toMatchObject({
        opt_in_status: "opted_in",
        opt_in_source: "paper form",
      });
    });

    it("answers 409 workspace_not_active on a suspended workspace", async () => {
      await t.request("PATCH", `/api/v1/workspaces/${ws}`, { body: { status: "suspended" } });
      const res = await upsert({ phone: anna });
      expect(res.statusCode).toBe(409);
      expect(res.json().error_code).toBe("workspace_not_active");
    });

    it("records a contact's opt-out on a suspended workspace, and refuses any other change there", async () => {
      const id = (await upsert({ phone: anna, opt_in_status: "opted_in" })).json().data.id;
      await t.request("PATCH", `/api/v1/workspaces/${ws}`, { body: { status: "suspended" } });
      const renamed = await patch(id, { first_name: "Anne" });
      expect(renamed.statusCode).toBe(409);
      const both = await patch(id, { opt_in_status: "opted_out", first_name: "Anne" });
      expect(both.statusCode).toBe(409);
      const withdrawn = await patch(id, { opt_in_status: "opted_out" });
      expect(withdrawn.statusCode).toBe(200);
      expect(withdrawn.json().data.opt_in_status).toBe("opted_out");
    });

    it("answers every one of many upserts of one new phone at once, one 201 and the rest 200", async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => upsert({ phone: anna, tags: [`wave-${i}`] })),
      );
      const statuses = answers.map((a) => a.statusCode).sort();
      expect(statuses, answers.map((a) => a.body).join("\n")).toEqual([
        200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200,
        200, 201,
      ]);
    });

    it("enforces the plan's contacts limit on new contacts only, and shows usage", async () => {
      await t.close();
      t = await startTestApp({ plansFile: contactsLimitCatalogue(2) });
      ws = await t.createWorkspace({ plan_id: "1" });
      expect((await upsert({ phone: anna })).statusCode).toBe(201);
      expect((await upsert({ phone: ben, opt_in_status: "opted_in" })).statusCode).toBe(201);
      const over = await upsert({ phone: carl });
      expect(over.statusCode).toBe(409);
      expect(over.json()).toMatchObject({
        error_code: "plan_limit_exceeded",
        details: [{ field: "contacts", limit: 2, used: 2 }],
      });
      // Contacts are never deleted, so the advice is the plan alone.
      expect(over.json().message).toContain("move the workspace to a plan with more contacts");
      expect((await upsert({ phone: anna, first_name: "Anna" })).statusCode).toBe(200);
      const usage = WorkspaceWithUsageResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${ws}`)).json(),
      ).data.usage;
      expect(usage.contacts).toEqual({ total: 2, opted_in: 1, not_set: 1, opted_out: 0 });
      expect(usage.limits.find((l) => l.key === "contacts")).toMatchObject({ limit: 2, used: 2 });
    });

    it("hides another reseller's workspace and another workspace from a workspace token (404)", async () => {
      const other = await t.otherReseller();
      expect((await upsert({ phone: anna }, other)).statusCode).toBe(404);
      const otherWs = await t.createWorkspace({ name: "Other" });
      const token = await t.tokenWith(["contacts:write", "contacts:read"], otherWs);
      expect((await upsert({ phone: anna }, token)).statusCode).toBe(404);
      expect(
        (
          await t.request("POST", `/api/v1/workspaces/${otherWs}/contacts`, {
            token,
            body: { phone: anna },
          })
        ).statusCode,
      ).toBe(201);
    });

    it("needs contacts:write to write and contacts:read to read", async () => {
      const reader = await t.tokenWith(["contacts:read"]);
      const res = await upsert({ phone: anna }, reader);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toContain("contacts:write");
      const writer = await t.tokenWith(["contacts:write"]);
      expect((await t.request("GET", path(), { token: writer })).statusCode).toBe(403);
    });
  });

  describe("update", () => {
    async function created(body: Record<string, unknown> = {}) {
      return ContactResponse.parse((await upsert({ phone: anna, ...body })).json()).data;
    }

    it("changes only the given fields; tags replace, custom fields merge, null removes a key", async () => {
      const contact = await created({
        first_name: "Anna",
        last_name: "Schmidt",
        tags: ["a", "b"],
        custom_fields: { city: "Berlin", shoe: "38" },
      });
      const res = await patch(contact.id, {
        last_name: null,
        tags: ["c"],
        custom_fields: { shoe: null, vip: "yes" },
      });
      expect(res.statusCode).toBe(200);
      expect(ContactResponse.parse(res.json()).data).toMatchObject({
        first_name: "Anna",
        last_name: null,
        tags: ["c"],
        custom_fields: { city: "Berlin", vip: "yes" },
      });
      const tags = TagListResponse.parse(
        (await t.request("GET", `/api/v1/workspaces/${ws}/tags`)).json(),
      ).data;
      expect(tags.map((tag) => tag.name)).toEqual(["c"]);
    });

    it("refuses to opt a contact in with a consent given before their opt-out, directly or by a detour", async () => {
      const id = (await upsert({ phone: anna, opt_in_status: "opted_in" })).json().data.id;
      t.clock.advance(3_600_000);
      const optedOut = (await patch(id, { opt_in_status: "opted_out" })).json().data;
      expect(optedOut.opted_out_at).toBe("2026-11-22T10:30:00Z");
      const stale = await patch(id, {
        opt_in_status: "opted_in",
        opt_in_source: "paper form",
        // A minute before the opt-out, written with an offset.
        opted_in_at: "2026-11-22T11:29:00+01:00",
      });
      expect(stale.statusCode).toBe(422);
      expect(stale.json().details).toEqual([
        {
          field: "opted_in_at",
          message: expect.stringContaining("earlier than this contact's opt-out"),
        },
      ]);
      expect((await t.request("GET", path(`/${id}`))).json().data.opt_in_status).toBe("opted_out");
      const fresh = await patch(id, {
        opt_in_status: "opted_in",
        opt_in_source: "paper form",
        opted_in_at: optedOut.opted_out_at,
      });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json().data).toMatchObject({
        opt_in_status: "opted_in",
        opted_in_at: optedOut.opted_out_at,
      });
      // Nor by a detour: opted in again later, moved to not_set, then upserted as opted in with
      // the old consent.
      t.clock.advance(60_000);
      await patch(id, { opt_in_status: "opted_out" });
      t.clock.advance(60_000);
      await patch(id, { opt_in_status: "opted_in", opt_in_source: "phone call" });
      expect((await patch(id, { opt_in_status: "not_set" })).statusCode).toBe(200);
      const detour = await upsert({
        phone: anna,
        opt_in_status: "opted_in",
        opt_in_source: "old form",
        opted_in_at: "2026-11-22T09:00:00Z",
      });
      expect(detour.statusCode).toBe(422);
      expect(detour.json().details[0].field).toBe("opted_in_at");
      // An import row doing the same is that row's error.
      const csv = `phone,opt_in_status,opt_in_source,opted_in_at\n${anna},opted_in,old form,2026-11-22T09:00:00Z\n`;
      const started = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
        body: { csv: Buffer.from(csv).toString("base64") },
      });
      await t.runJobs();
      const imported = await t.request(
        "GET",
        `/api/v1/workspaces/${ws}/contacts/imports/${started.json().data.id}`,
      );
      expect(imported.json().data).toMatchObject({ status: "completed", error_count: 1 });
      expect(imported.json().data.errors[0]).toMatchObject({ row: 1, field: "opted_in_at" });
      expect((await t.request("GET", path(`/${id}`))).json().data.opt_in_status).toBe("not_set");
    });

    it("takes all three opt-in statuses and records each move's time", async () => {
      const contact = await created();
      t.clock.advance(3_600_000);
      const optedIn = ContactResponse.parse(
        (await patch(contact.id, { opt_in_status: "opted_in" })).json(),
      ).data;
      expect(optedIn).toMatchObject({
        opt_in_status: "opted_in",
        opted_in_at: "2026-11-22T10:30:00Z",
      });
      const reset = ContactResponse.parse(
        (await patch(contact.id, { opt_in_status: "not_set" })).json(),
      ).data;
      expect(reset.opt_in_status).toBe("not_set");
      t.clock.advance(3_600_000);
      const optedOut = ContactResponse.parse(
        (await patch(contact.id, { opt_in_status: "opted_out" })).json(),
      ).data;
      expect(optedOut).toMatchObject({
        opt_in_status: "opted_out",
        opted_out_at: "2026-11-22T11:30:00Z",
        opted_in_at: "2026-11-22T10:30:00Z",
      });
    });

    it("refuses a phone change and an unknown contact", async () => {
      const contact = await created();
      const res = await patch(contact.id, { phone: ben });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0]).toMatchObject({ field: "phone" });
      expect((await patch("ct_nope", { first_name: "X" })).statusCode).toBe(404);
      expect((await t.request("GET", path("/ct_nope"))).statusCode).toBe(404);
    });

    it("refuses more than 50 custom fields after the merge", async () => {
      const fields = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, "v"]));
      const contact = await created({ custom_fields: fields });
      const more = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, "v"]));
      const res = await patch(contact.id, { custom_fields: more });
      expect(res.statusCode).toBe(422);
      expect(res.json().details[0].field).toBe("custom_fields");
    });
  });

  describe("list and search", () => {
    beforeEach(async () => {
      await upsert({
        phone: anna,
        first_name: "Anna-Lena",
        last_name: "Müller",
        email: "anna.mueller@example.com",
        tags: ["vip"],
        opt_in_status: "opted_in",
      });
      await upsert({
        phone: ben,
        first_name: "Ben",
        last_name: "Schmidt",
        email: "ben@shop.test",
        tags: ["vip", "b2b"],
      });
      await upsert({
        phone: carl,
        first_name: "Carl",
        last_name: "O'Brien",
        email: "carl@example.com",
      });
    });

    const phones = (body: { data: { phone: string }[] }) => body.data.map((c) => c.phone);

    it("gives a search's exact total on every page by number, past the last one too", async () => {
      // Two contacts match `example`: a full page, the last page and a page past the end.
      for (const [page, shown] of [
        [1, [carl]],
        [2, [anna]],
        [3, []],
      ] as const) {
        const body = await list(`?search=example&per_page=1&page=${page}`);
        expect(phones(body), `page ${page}`).toEqual(shown);
        expect(body.meta.pagination, `page ${page}`).toMatchObject({
          page,
          total: 2,
          total_pages: 2,
          total_is_lower_bound: false,
        });
      }
    });

    it("shows a contact with quotes, backslashes, control characters and emoji on every kind of page exactly as GET shows it", async () => {
      const created = await upsert({
        phone: "+4917612345678",
        first_name: 'Zoë "Zee" \\ O\'Neil',
        last_name: "Tab\there\nnewline \u0001 🎉",
        email: "zoe@example.com",
        tags: ['say "hi"', "back\\slash"],
        custom_fields: { note: 'line\nbreak \\ "q"' },
        opt_in_status: "opted_in",
        opt_in_source: 'form "A" \\ 2026',
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = (created.json() as { data: { id: string } }).data.id;
      const shown = (await t.request("GET", path(`/${id}`))).json() as { data: unknown };
      // The list pages are JSON written by the database: each shape of page must parse to the
      // same contact as the one written by JavaScript.
      for (const query of [
        "",
        "?opt_in_status=opted_in",
        `?tag=${encodeURIComponent('say "hi"')}`,
        `?tag=${encodeURIComponent('say "hi"')}&opt_in_status=opted_in`,
        "?search=zoe",
        "?search=zoe&opt_in_status=opted_in",
      ]) {
        const res = await t.request("GET", `${path()}${query}`);
        expect(res.statusCode, query).toBe(200);
        const page = JSON.parse(res.body) as { data: unknown[] };
        expect(page.data[0], query).toEqual(shown.data);
      }
    });

    it("lists newest first with the total", async () => {
      const body = await list();
      expect(phones(body)).toEqual([carl, ben, anna]);
      expect(body.meta.pagination).toMatchObject({
        page: 1,
        per_page: 20,
        total: 3,
        total_pages: 1,
        next_cursor: null,
      });
    });

    it.each([
      ["anna", [anna]],
      ["ANNA lena", [anna]],
      ["anna-lena", [anna]],
      ["muller", [anna]],
      ["Müll", [anna]],
      ["schm", [ben]],
      ["anna.mueller@exa", [anna]],
      ["ben@shop.test", [ben]],
      ["+49151", [anna]],
      ["+49 152 234", [ben]],
      ["1415555", [carl]],
      ["o'brien", [carl]],
      ["example", [carl, anna]],
      ["nobody", []],
    ])("finds %s by prefix in names, email and phone", async (search, expected) => {
      expect(phones(await list(`?search=${encodeURIComponent(search)}`))).toEqual(expected);
    });

    it.each([
      '"',
      'anna"',
      "AND",
      "anna OR ben",
      "NEAR(anna ben)",
      "*",
      "ben*",
      "-anna",
      "{first_name}:x",
      "(",
      "''",
      "%",
      "\\",
    ])("searches %s literally, never a query error", async (search) => {
      const res = await t.request("GET", `${path()}?search=${encodeURIComponent(search)}`);
      expect(res.statusCode).toBe(200);
    });

    it("filters by tag and opt-in status, alone and together, with exact totals", async () => {
      const vip = await list("?tag=vip");
      expect(phones(vip)).toEqual([ben, anna]);
      expect(vip.meta.pagination.total).toBe(2);
      const optedIn = await list("?opt_in_status=opted_in");
      expect(phones(optedIn)).toEqual([anna]);
      expect(optedIn.meta.pagination.total).toBe(1);
      expect(phones(await list("?tag=vip&opt_in_status=not_set"))).toEqual([ben]);
      expect(phones(await list("?tag=vip&search=schmidt"))).toEqual([ben]);
      expect((await list("?tag=unknown")).meta.pagination.total).toBe(0);
      // An empty tag (a form's "any tag") filters nothing, as an empty search does.
      const all = await list("");
      for (const empty of ["?tag=", "?tag=%20", "?search=&tag="]) {
        expect(phones(await list(empty)), empty).toEqual(phones(all));
      }
    });

    it("keeps a search inside its workspace", async () => {
      const other = await t.createWorkspace({ name: "Other" });
      await t.request("POST", `/api/v1/workspaces/${other}/contacts`, {
        body: { phone: anna, first_name: "Anna" },
      });
      expect(phones(await list("?search=anna"))).toEqual([anna]);
      const res = await t.request("GET", `/api/v1/workspaces/${other}/contacts?search=ben`);
      expect(ContactListResponse.parse(res.json()).data).toEqual([]);
    });

    it("writes each listed or found contact byte for byte as its GET does, on either engine", async () => {
      const created = await upsert({
        phone: "+4915112340077",
        first_name: 'Zoë "Z" \\ O\'Brien',
        last_name: "tab\there",
        tags: ["vip", "Köln"],
        custom_fields: { plan: "gold", note: "line\nbreak" },
        opt_in_status: "opted_in",
        opt_in_source: "web form",
      });
      const id = created.json().data.id;
      // The record as GET shows it, compact and in the contract's key order.
      const record = JSON.stringify((await t.request("GET", path(`/${id}`))).json().data);
      for (const query of ["?per_page=100", "?search=zo%C3%AB", "?tag=vip"]) {
        const listed = (await t.request("GET", `${path()}${query}`)).body;
        expect(listed, query).toContain(record);
      }
    });

    it("walks every page by cursor, and by page number, with the same rows", async () => {
      const first = await list("?per_page=2");
      expect(phones(first)).toEqual([carl, ben]);
      const cursor = first.meta.pagination.next_cursor ?? "";
      const second = await list(`?per_page=2&cursor=${cursor}`);
      expect(phones(second)).toEqual([anna]);
      expect(second.meta.pagination).toMatchObject({ page: 2, next_cursor: null });
      expect(phones(await list("?per_page=2&page=2"))).toEqual([anna]);
      const searched = await list("?per_page=1&search=example");
      expect(phones(searched)).toEqual([carl]);
      expect(searched.meta.pagination.total).toBe(2);
      const more = await list(
        `?per_page=1&search=example&cursor=${searched.meta.pagination.next_cursor}`,
      );
      expect(phones(more)).toEqual([anna]);
      const tagged = await list("?per_page=1&tag=vip");
      const next = await list(`?per_page=1&tag=vip&cursor=${tagged.meta.pagination.next_cursor}`);
      expect(phones(next)).toEqual([anna]);
    });

    it("refuses bad paging and filters with a 422 naming the field", async () => {
      for (const [query, field] of [
        ["?per_page=101", "per_page"],
        ["?page=0", "page"],
        ["?opt_in_status=maybe", "opt_in_status"],
        ["?cursor=garbage", "cursor"],
      ]) {
        const res = await t.request("GET", `${path()}${query}`);
        expect(res.statusCode).toBe(422);
        expect(res.json().details[0].field).toBe(field);
      }
    });

    it("lists tags with their contact counts", async () => {
      const res = await t.request("GET", `/api/v1/workspaces/${ws}/tags`);
      const tags = TagListResponse.parse(res.json());
      expect(tags.data.map((tag) => [tag.name, tag.contact_count])).toEqual([
        ["b2b", 1],
        ["vip", 2],
      ]);
      expect(tags.meta.pagination.total).toBe(2);
    });

    it("takes tags that differ only in case for one tag: once per contact, one entry in the tag list", async () => {
      const dave = await upsert({ phone: "+4917612340001", tags: ["VIP", "vip", " Vip ", "new"] });
      expect(dave.statusCode, dave.body).toBe(201);
      expect(dave.json().data.tags).toEqual(["VIP", "new"]);
      const res = await t.request("GET", `/api/v1/workspaces/${ws}/tags`);
      const tags = TagListResponse.parse(res.json());
      // Named as first written in the workspace, counted as the tag filter finds them.
      expect(tags.data.map((tag) => [tag.name, tag.contact_count])).toEqual([
        ["new", 1],
        ["b2b", 1],
        ["vip", 3],
      ]);
      expect((await list("?tag=VIP")).meta.pagination.total).toBe(3);
      expect((await list("?tag=vip&per_page=1&page=3")).data).toHaveLength(1);
    });

    it("mends, as it migrates, a contact an older version gave two spellings of one tag", async () => {
      const carlId = (await list("?search=carl")).data[0]?.id ?? "";
      // What an older version wrote for tags ["Vip", "vip"]: a second spelling and both links.
      const db = t.database.db;
      await sql`INSERT INTO contact_tags (workspace_id, name, folded_name, contact_count, created_at)
        VALUES (${ws}, 'Vip', 'vip', 1, '2026-11-26T00:00:00Z')`.execute(db);
      const tagSeq = async (name: string) =>
        (
          await db
            .selectFrom("contact_tags")
            .select("seq")
            .where("workspace_id", "=", ws)
            .where("name", "=", name)
            .executeTakeFirstOrThrow()
        ).seq;
      const carl = await db
        .selectFrom("contacts")
        .select("seq")
        .where("id", "=", carlId)
        .executeTakeFirstOrThrow();
      await db
        .insertInto("contact_tag_links")
        .values([
          { tag_seq: await tagSeq("Vip"), contact_seq: carl.seq },
          { tag_seq: await tagSeq("vip"), contact_seq: carl.seq },
        ])
        .execute();
      await db
        .updateTable("contact_tags")
        .set((eb) => ({ contact_count: eb("contact_count", "+", 1) }))
        .where("seq", "=", await tagSeq("vip"))
        .execute();
      await db
        .updateTable("contacts")
        .set({ tags: JSON.stringify(["Vip", "vip"]) })
        .where("seq", "=", carl.seq)
        .execute();
      const vipCount = async () =>
        (await t.request("GET", `/api/v1/workspaces/${ws}/tags`))
          .json()
          .data.find((tag: { name: string }) => tag.name === "vip")?.contact_count;
      expect(await vipCount()).toBe(4);

      await tagSpellingsOnce(db as unknown as Kysely<unknown>);
      expect(await vipCount()).toBe(3);
      expect((await list("?tag=vip")).meta.pagination.total).toBe(3);
      const mended = (await t.request("GET", path(`/${carlId}`))).json().data;
      expect(mended.tags).toEqual(["Vip"]);
    });
  });
});
