import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** A workspace with a channel and an approved template, for campaign bodies that get that far. */
async function campaignWorld(t: TestApp) {
  const ws = await t.createWorkspace({ plan_id: "2" });
  const base = `/api/v1/workspaces/${ws}`;
  const channel = await t.request("POST", `${base}/channels`, {
    body: { phone: "+4915112340000" },
  });
  expect(channel.statusCode, channel.body).toBe(201);
  const template = await t.request("POST", `${base}/templates`, {
    body: {
      name: "spring_news",
      category: "marketing",
      language: "en",
      components: [{ type: "BODY", text: "Hello, news." }],
    },
  });
  expect(template.statusCode, template.body).toBe(201);
  t.clock.advance(5000);
  await t.runJobs();
  const campaign = {
    name: "Spring launch",
    channel_id: channel.json().data.id as string,
    template_name: "spring_news",
    template_language: "en",
    audience: { all: true },
  };
  return { ws, base, campaign };
}

const huge = "x".repeat(900_000);

describe("error messages name the field at fault and what it takes", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("names the audience option's own problem when the body holds exactly one option", async () => {
    const w = await campaignWorld(t);
    const create = (audience: unknown) =>
      t.request("POST", `${w.base}/campaigns`, { body: { ...w.campaign, audience } });
    const cases: [unknown, string, RegExp][] = [
      [
        { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) },
        "audience.tags",
        /at most 100 tags/,
      ],
      [
        { contact_ids: Array.from({ length: 10_001 }, (_, i) => `ct_${i}`) },
        "audience.contact_ids",
        /at most 10,000 contacts/,
      ],
      [{ tags: [1] }, "audience.tags.0", /must be a string/],
      [{ contact_ids: [null] }, "audience.contact_ids.0", /contact id must be a string/],
      [{ tags: "vip" }, "audience.tags", /list of tags/],
      [{ all: "true" }, "audience.all", /all must be true/],
    ];
    for (const [audience, field, message] of cases) {
      const res = await create(audience);
      expect(res.statusCode, res.body).toBe(422);
      const details = res.json().details as { field: string; message: string }[];
      expect(details, res.body).toHaveLength(1);
      expect(details[0]?.field, res.body).toBe(field);
      expect(details[0]?.message, res.body).toMatch(message);
      expect(res.json().message).not.toMatch(/exactly one of/);
    }
    for (const audience of [{}, { all: true, tags: ["vip"] }]) {
      const res = await create(audience);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().details).toEqual([
        { field: "audience", message: expect.stringMatching(/exactly one of/) },
      ]);
    }
  });

  it("cuts an unknown id or template name it quotes back, so the answer stays small", async () => {
    const w = await campaignWorld(t);
    const bodies = [
      { ...w.campaign, channel_id: huge },
      { ...w.campaign, template_name: huge },
      { ...w.campaign, template_language: huge },
    ];
    for (const body of bodies) {
      const res = await t.request("POST", `${w.base}/campaigns`, { body });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.body.length).toBeLessThan(2000);
      expect(res.body).toContain("…");
    }
    await t.request("POST", "/api/v1/webhook-endpoints", {
      body: { url: "https://crm.example.test/hooks", events: ["*"] },
    });
    const event = (await t.request("GET", "/api/v1/events?type=workspace.created")).json().data[0];
    const redeliver = await t.request("POST", `/api/v1/events/${event.id}/redeliver`, {
      body: { endpoint_id: huge },
    });
    expect(redeliver.statusCode, redeliver.body.slice(0, 300)).toBe(404);
    expect(redeliver.body.length).toBeLessThan(2000);
    const inbound = await t.request("POST", "/api/v1/sandbox/inbound", {
      body: { workspace_id: huge, from: "+4915112345671", text: "hi" },
    });
    expect(inbound.statusCode, inbound.body.slice(0, 300)).toBe(404);
    expect(inbound.body.length).toBeLessThan(2000);
  });

  it("says in its own words what zod would word as 'Too small', 'Too big' or 'Invalid option', quoting the value", async () => {
    const ws = await t.createWorkspace({ plan_id: "2" });
    const detail = async (method: "GET" | "POST", url: string, body?: unknown) => {
      const res = await t.request(method, url, body === undefined ? {} : { body });
      expect(res.statusCode, res.body).toBe(422);
      return res.json().details;
    };
    expect(await detail("GET", `/api/v1/workspaces/${ws}/contacts?cursor=`)).toEqual([
      { field: "cursor", message: "cursor must not be empty" },
    ]);
    expect(await detail("GET", `/api/v1/workspaces/${ws}/campaigns?status=foo`)).toEqual([
      {
        field: "status",
        message:
          "status must be one of draft, scheduled, running, paused, completed, failed, cancelled; got 'foo'",
      },
    ]);
    const huge = { name: "X", contact_email: "a@b.example", plan_id: 1e20 };
    expect(await detail("POST", "/api/v1/workspaces", huge)).toEqual([
      { field: "plan_id", message: "plan_id must be a whole number, at most 9007199254740991" },
    ]);
  });

  it("lists the first 100 problems of a body with thousands, saying how many there were", async () => {
    const body = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`extra_${i}`, i]));
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "X", contact_email: "a@b.example", ...body },
    });
    expect(res.statusCode).toBe(422);
    const answer = res.json();
    expect(answer.details).toHaveLength(100);
    expect(answer.details[0]).toEqual({
      field: "extra_0",
      message: "is not a field this endpoint accepts",
    });
    expect(answer.message).toMatch(/\(details lists the first 100 of 5,000 problems\)$/);
    expect(res.body.length).toBeLessThan(20_000);
  });

  it("keeps an error answer small when it names a huge unknown field", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Acme", contact_email: "owner@acme.test", [huge]: 1 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(5000);
    expect(res.json().details[0].field).toMatch(/^x+…$/);
  });

  it("never cuts an emoji in half when it cuts a huge field name", async () => {
    const emojis = "😀".repeat(2000);
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Acme", contact_email: "owner@acme.test", [emojis]: 1 },
    });
    expect(res.statusCode).toBe(422);
    const field: string = res.json().details[0].field;
    expect(field.endsWith("…")).toBe(true);
    // No lone surrogate: the text round-trips through UTF-8 unchanged.
    expect(Buffer.from(field, "utf8").toString("utf8")).toBe(field);
  });

  it("says template_name must not be empty, and names template_language when only the language is wrong", async () => {
    const w = await campaignWorld(t);
    const create = (body: Record<string, unknown>) =>
      t.request("POST", `${w.base}/campaigns`, { body: { ...w.campaign, ...body } });
    const empty = await create({ template_name: "" });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().details).toEqual([
      { field: "template_name", message: "template_name must not be empty" },
    ]);
    const language = await create({ template_language: "de" });
    expect(language.statusCode).toBe(422);
    expect(language.json().error_code).toBe("template_not_approved");
    expect(language.json().details).toEqual([
      { field: "template_language", message: expect.stringMatching(/languages: en/) },
    ]);
    const blank = await create({ template_language: "  " });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().details[0].field).toBe("template_language");
    const unknown = await create({ template_name: "autumn_news" });
    expect(unknown.json().details).toEqual([
      { field: "template_name", message: expect.stringMatching(/no such template/) },
    ]);
  });

  it("names mapping when an import's mapping names a column the header lacks", async () => {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: {
        csv: Buffer.from("phone,first_name\n+4915112345671,Ada\n").toString("base64"),
        mapping: { nope: "phone" },
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details[0].field).toBe("mapping");
  });

  it("says a blank Idempotency-Key must not be blank", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "Acme", contact_email: "owner@acme.test", send_invitation: false },
      headers: { "idempotency-key": "   " },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([
      { field: "Idempotency-Key", message: expect.stringMatching(/must not be blank/) },
    ]);
  });

  it("refuses a __proto__ key on a POST that takes no body as such, not as invalid JSON", async () => {
    const ws = await t.createWorkspace();
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/archive`, {
      body: '{"__proto__": {"x": 1}}',
      headers: { "content-type": "application/json" },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toMatch(/__proto__/);
    expect(res.json().message).not.toMatch(/not valid JSON/);
    const unknown = await t.request("POST", "/api/v1/no-such-endpoint", {
      body: '{"__proto__": {"x": 1}}',
      headers: { "content-type": "application/json" },
    });
    expect(unknown.statusCode, unknown.body).toBe(404);
  });

  it("states the 1 MB limit when a JSON body is too large", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: JSON.stringify({ name: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/1 MB/);
  });

  it("refuses a compressed body with 415 asking for it uncompressed, JSON or CSV", async () => {
    const ws = await t.createWorkspace();
    const json = await t.request("POST", "/api/v1/workspaces", {
      body: gzipSync(JSON.stringify({ name: "Acme", contact_email: "o@acme.test" })),
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(json.statusCode, json.body).toBe(415);
    expect(json.json().message).toMatch(/uncompressed/);
    const csv = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: gzipSync("phone\n+4915112345671\n"),
      headers: { "content-type": "text/csv", "content-encoding": "gzip" },
    });
    expect(csv.statusCode, csv.body).toBe(415);
    expect(csv.json().message).toMatch(/uncompressed/);
  });

  it("refuses a page number too large to count exactly, naming page", async () => {
    const res = await t.request("GET", "/api/v1/workspaces?page=9007199254740991");
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().details[0].field).toBe("page");
    const last = await t.request("GET", "/api/v1/workspaces?page=1000000000");
    expect(last.statusCode, last.body).toBe(200);
    expect(last.json().meta.pagination.page).toBe(1_000_000_000);
  });
});

describe("the public sign-up form", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("refuses a business name whose bytes are not UTF-8, showing the error on the field", async () => {
    for (const name of ["%FF%FE", "Shop%ED%A0%80"]) {
      const res = await t.app.inject({
        method: "POST",
        url: "/register",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: `plan=starter-monthly&business_name=${name}&contact_email=a%40shop.test`,
      });
      expect(res.statusCode, name).toBe(422);
      expect(res.body).toContain('id="business_name-error"');
      expect(res.body).not.toContain("\uFFFD");
    }
    const workspaces = await t.request("GET", "/api/v1/workspaces");
    expect(workspaces.json().data).toHaveLength(0);
  });
});
