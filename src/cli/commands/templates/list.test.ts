import { afterEach, describe, expect, it } from "vitest";
import {
  approvedTemplate,
  listEnvelope,
  rejectedTemplate,
  workspaceId,
} from "../../../../test/fixtures/templates.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/templates`;

describe("reseller templates list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubPage(query: Record<string, string>, body: object) {
    api.pool.intercept({ path, method: "GET", query }).reply(200, body, { headers: jsonHeaders });
  }
  const firstPage = { page: "1", per_page: "20" };

  it("shows a table with status and rejection reason at a terminal", async () => {
    stubPage(firstPage, listEnvelope([rejectedTemplate, approvedTemplate]));
    const run = await runCli(["templates", "list", "-w", workspaceId], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+LANGUAGE\s+CATEGORY\s+STATUS\s+REJECTION\s+UPDATED$/);
    expect(lines[1]).toMatch(
      /^tpl_02promo\s+promo\s+en\s+utility\s+rejected\s+INCORRECT_CATEGORY\s+2026-11-22 09:30$/,
    );
    expect(lines[2]).toMatch(
      /^tpl_01order\s+order_update\s+en_US\s+utility\s+approved\s+2026-11-22 09:30$/,
    );
  });

  it("prints tab-separated raw values when piped, and the service's array with --json", async () => {
    stubPage(firstPage, listEnvelope([rejectedTemplate]));
    const piped = await runCli(["templates", "list"], {
      env: { ...api.env, RESELLER_WORKSPACE: workspaceId },
      dispatcher: api.agent,
    });
    expect(piped.stdout).toBe(
      "tpl_02promo\tpromo\ten\tutility\trejected\tINCORRECT_CATEGORY\t2026-11-22T09:30:00Z\n",
    );
    stubPage(firstPage, listEnvelope([rejectedTemplate]));
    const json = await runCli(["templates", "list", "--json", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual([rejectedTemplate]);
  });

  it("passes the filters to the service", async () => {
    stubPage(
      { ...firstPage, status: "rejected", category: "marketing", name: "promo", language: "en" },
      listEnvelope([]),
    );
    const run = await runCli(
      [
        "templates",
        "list",
        "-w",
        workspaceId,
        "--status",
        "rejected",
        "--category",
        "marketing",
        "--name",
        "promo",
        "--language",
        "en",
      ],
      { tty: true, env: { ...api.env, NO_COLOR: "1" }, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("No templates match.");
  });

  it("follows every page by cursor with --all", async () => {
    stubPage(
      { per_page: "20" },
      listEnvelope([rejectedTemplate], { total: 2, total_pages: 2, next_cursor: "c2" }),
    );
    stubPage({ per_page: "20", cursor: "c2" }, listEnvelope([approvedTemplate], { page: 2 }));
    const run = await runCli(["templates", "list", "--all", "-q", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("tpl_02promo\ntpl_01order\n");
  });

  it("refuses a status outside the vocabulary before any request", async () => {
    const run = await runCli(["templates", "list", "--status", "gone", "-w", workspaceId], {
      env: api.env,
    });
    expect(run.code).toBe(2);
  });
});
