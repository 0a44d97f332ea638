import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

interface Event {
  id: string;
  type: string;
  workspace_id: string | null;
  data: Record<string, unknown>;
}

/** Every change the contract names records its event, with the resource as the API shows it. */
describe("events of every resource", () => {
  let t: TestApp;
  let ws: string;
  const base = () => `/api/v1/workspaces/${ws}`;
  const events = async (type: string) =>
    (await t.request("GET", `/api/v1/events?type=${type}&per_page=100`)).json().data as Event[];

  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace({ plan_id: "2" });
  });
  afterEach(() => t.close());

  it("records contact_import.completed with the import", async () => {
    const csv = Buffer.from("phone,first_name\n+4915112345671,Ada\n").toString("base64");
    const res = await t.request("POST", `${base()}/contacts/import`, { body: { csv } });
    expect(res.statusCode, res.body).toBe(202);
    expect(await events("contact_import.completed")).toEqual([]);
    await t.runJobs();
    const [event] = await events("contact_import.completed");
    expect(event).toMatchObject({
      workspace_id: ws,
      data: { id: res.json().data.id, status: "completed", total_rows: 1 },
    });
  });

  it("records contact.opted_in and contact.opted_out when consent changes, and only then", async () => {
    const created = await t.request("POST", `${base()}/contacts`, {
      body: { phone: "+4915112345671", first_name: "Ada", opt_in_status: "opted_in" },
    });
    const id = created.json().data.id;
    await t.request("PATCH", `${base()}/contacts/${id}`, { body: { first_name: "Ada L." } });
    expect(await events("contact.opted_in")).toHaveLength(1);
    await t.request("POST", "/api/v1/sandbox/inbound", {
      body: { workspace_id: ws, from: "+4915112345671", text: "STOP" },
    });
    const [out] = await events("contact.opted_out");
    expect(out).toMatchObject({ data: { id, opt_in_status: "opted_out", first_name: "Ada L." } });
    await t.request("PATCH", `${base()}/contacts/${id}`, {
      body: { opt_in_status: "opted_in", opt_in_source: "signed form" },
    });
    expect(await events("contact.opted_in")).toHaveLength(2);
    expect(await events("contact.opted_out")).toHaveLength(1);
  });

  it("records each consent change an import's rows make to existing contacts, wherever its batches end; the contacts it creates are told by its completion", async () => {
    const created = await t.request("POST", `${base()}/contacts`, {
      body: { phone: "+4915112345671", first_name: "Ada" },
    });
    const id = created.json().data.id;
    const csv = Buffer.from(
      "phone,opt_in_status\n+4915112345671,opted_in\n+4915112345672,opted_in\n+4915112345671,opted_out\n+4915112345673,not_set\n",
    ).toString("base64");
    const res = await t.request("POST", `${base()}/contacts/import`, { body: { csv } });
    expect(res.statusCode, res.body).toBe(202);
    await t.runJobs();
    const optedOut = await events("contact.opted_out");
    expect(optedOut).toHaveLength(1);
    expect(optedOut[0]).toMatchObject({
      workspace_id: ws,
      data: { id, opt_in_status: "opted_out" },
    });
    // Ada's opt-in on the way is a change of its own row; the new contact's opt-in is no event.
    const optedIn = await events("contact.opted_in");
    expect(optedIn.map((event) => event.data.id)).toEqual([id]);
  });

  it("records channel.connected and template.status_changed", async () => {
    const channel = await t.request("POST", `${base()}/channels`, {
      body: { phone: "+4915112340000", name: "Main" },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const [connected] = await events("channel.connected");
    expect(connected).toMatchObject({ data: { id: channel.json().data.id, status: "connected" } });

    const template = await t.request("POST", `${base()}/templates`, {
      body: {
        name: "order_update",
        category: "utility",
        language: "en",
        components: [{ type: "BODY", text: "Your order shipped." }],
      },
    });
    expect(template.statusCode, template.body).toBe(201);
    t.clock.advance(10_000);
    await t.runJobs();
    const [changed] = await events("template.status_changed");
    expect(changed).toMatchObject({
      data: { id: template.json().data.id, status: expect.stringMatching(/approved|rejected/) },
    });
  });
});
