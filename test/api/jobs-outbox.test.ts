import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobListResponse } from "../../src/contract/jobs.js";
import { OutboxListResponse } from "../../src/contract/outbox.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("GET /api/v1/jobs and GET /api/v1/outbox (read-only, for the dashboard)", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function importInto(workspaceId: string): Promise<string> {
    const response = await t.request("POST", `/api/v1/workspaces/${workspaceId}/contacts/import`, {
      body: { csv: base64("phone\n+4915112345678\n") },
    });
    expect(response.statusCode).toBe(202);
    return (response.json() as { data: { id: string } }).data.id;
  }

  it("lists the jobs of the caller's workspaces, newest first, each with its subject", async () => {
    const ws = await t.createWorkspace();
    const first = await importInto(ws);
    const second = await importInto(ws);
    const page = JobListResponse.parse((await t.request("GET", "/api/v1/jobs")).json());
    expect(page.data.map((j) => j.subject)).toEqual([
      { type: "contact_import", id: second, workspace_id: ws },
      { type: "contact_import", id: first, workspace_id: ws },
    ]);
    expect(page.data[0]).toMatchObject({ kind: "contact_import", state: "queued", attempts: 0 });
    expect(page.meta.pagination.total).toBe(2);

    const queued = JobListResponse.parse(
      (await t.request("GET", "/api/v1/jobs?state=queued")).json(),
    );
    expect(queued.data).toHaveLength(2);
    const failed = JobListResponse.parse(
      (await t.request("GET", "/api/v1/jobs?state=failed")).json(),
    );
    expect(failed.data).toEqual([]);
  });

  it("never shows another reseller's jobs, and a workspace token sees only its workspace's", async () => {
    const mine = await t.createWorkspace();
    const sibling = await t.createWorkspace({ name: "Sibling" });
    await importInto(mine);
    await importInto(sibling);
    const other = await t.otherReseller();
    const theirs = JobListResponse.parse(
      (await t.request("GET", "/api/v1/jobs", { token: other })).json(),
    );
    expect(theirs.data).toEqual([]);
    const scoped = await t.tokenWith(["workspaces:read"], mine);
    const own = JobListResponse.parse(
      (await t.request("GET", "/api/v1/jobs", { token: scoped })).json(),
    );
    expect(own.data.map((j) => j.subject.workspace_id)).toEqual([mine]);
  });

  it("refuses an unknown state with a 422 naming the field", async () => {
    const response = await t.request("GET", "/api/v1/jobs?state=sleeping");
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ error_code: "validation_failed" });
    expect(JSON.stringify(response.json())).toContain("state");
  });

  it("needs the workspaces:read scope", async () => {
    const token = await t.tokenWith(["contacts:read"]);
    expect((await t.request("GET", "/api/v1/jobs", { token })).statusCode).toBe(403);
    expect((await t.request("GET", "/api/v1/outbox", { token })).statusCode).toBe(403);
    expect((await t.request("GET", "/api/v1/outbox", { token: null })).statusCode).toBe(401);
  });

  it("lists the invitations in the outbox with their text, filtered by workspace on request", async () => {
    const acme = await t.createWorkspace({ send_invitation: true });
    const beta = await t.createWorkspace({
      name: "Beta",
      contact_email: "hi@beta.test",
      send_invitation: true,
    });
    const all = OutboxListResponse.parse((await t.request("GET", "/api/v1/outbox")).json());
    expect(all.data.map((m) => m.workspace_id)).toEqual([beta, acme]);
    expect(all.data[0]).toMatchObject({
      kind: "invitation",
      to: "hi@beta.test",
      delivery: "outbox",
      error: null,
    });
    expect(all.data[0]?.text).toContain(`/register?workspace=${beta}`);
    const one = OutboxListResponse.parse(
      (await t.request("GET", `/api/v1/outbox?workspace_id=${acme}`)).json(),
    );
    expect(one.data.map((m) => m.to)).toEqual(["owner@acme.test"]);
  });

  it("tells a client's workspace token that a send failed, not the mail server's words", async () => {
    const acme = await t.createWorkspace({ send_invitation: true });
    // As the mailer records a failed send.
    await t.database.db
      .updateTable("outbox")
      .set({ delivery: "failed", error: "connect ECONNREFUSED 10.0.3.4:587" })
      .execute();
    const reseller = (await t.request("GET", "/api/v1/outbox")).json().data;
    expect(reseller[0].error).toBe("connect ECONNREFUSED 10.0.3.4:587");
    const client = await t.tokenWith(["workspaces:read"], acme);
    const theirs = (await t.request("GET", "/api/v1/outbox", { token: client })).json().data;
    expect(theirs[0]).toMatchObject({ delivery: "failed" });
    expect(theirs[0].error).toBe("the email could not be sent; the reseller can see why");
  });

  it("keeps each reseller's outbox to itself", async () => {
    await t.createWorkspace({ send_invitation: true });
    const other = await t.otherReseller();
    const theirs = OutboxListResponse.parse(
      (await t.request("GET", "/api/v1/outbox", { token: other })).json(),
    );
    expect(theirs.data).toEqual([]);
  });
});
