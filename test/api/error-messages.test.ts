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

describe("error messages name the field at fault and what it takes", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

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
});
