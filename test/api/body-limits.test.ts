import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { otherBodyLimitBytes } from "../../src/service/body-limits.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** An import takes up to 140 MB; every other request is refused past 1 MB, unread. */
describe("request body limits", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("refuses a body over 1 MB on a route other than the import with 413, creating nothing", async () => {
    const res = await t.request("POST", "/api/v1/workspaces", {
      body: { name: "x".repeat(otherBodyLimitBytes), contact_email: "a@example.com" },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error_code).toBe("payload_too_large");
    const listed = (await t.request("GET", "/api/v1/workspaces")).json().data;
    expect(listed).toEqual([]);
  });

  it("takes an import of more than 1 MB", async () => {
    const ws = await t.createWorkspace();
    const lines = ["phone,first_name,custom.note"];
    for (let i = 0; lines.length < 14_000; i++) {
      lines.push(`+49151${String(10_000_000 + i)},Name${i},${"n".repeat(60)}`);
    }
    const csv = Buffer.from(`${lines.join("\n")}\n`).toString("base64");
    expect(csv.length).toBeGreaterThan(otherBodyLimitBytes);
    const res = await t.request("POST", `/api/v1/workspaces/${ws}/contacts/import`, {
      body: { csv },
    });
    expect(res.statusCode).toBe(202);
  });
});
