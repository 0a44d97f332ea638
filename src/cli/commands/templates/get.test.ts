import { afterEach, describe, expect, it } from "vitest";
import { envelope, rejectedTemplate, workspaceId } from "../../../../test/fixtures/templates.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller templates get", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubGet(id: string, status: number, body: object) {
    api.pool
      .intercept({ path: `/api/v1/workspaces/${workspaceId}/templates/${id}`, method: "GET" })
      .reply(status, body, { headers: jsonHeaders });
  }

  it("shows the record, the rejection and a preview at a terminal", async () => {
    stubGet(rejectedTemplate.id, 200, envelope(rejectedTemplate));
    const run = await runCli(["templates", "get", rejectedTemplate.id, "-w", workspaceId], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Status:\s+rejected/);
    expect(run.stdout).toMatch(/Rejection:\s+INCORRECT_CATEGORY/);
    expect(run.stdout).toMatch(/Why:\s+components\.0\.text: 'sale' is marketing wording/);
    expect(run.stdout).toContain("Preview");
    expect(run.stdout).toContain("│ Hi Ada, your order A-1042 has shipped.");
  });

  it("prints key and value lines without the preview when piped, and the data with --json", async () => {
    stubGet(rejectedTemplate.id, 200, envelope(rejectedTemplate));
    const piped = await runCli(["templates", "get", rejectedTemplate.id, "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(piped.stdout).toContain("rejection_reason\tINCORRECT_CATEGORY\n");
    expect(piped.stdout).not.toContain("│");
    stubGet(rejectedTemplate.id, 200, envelope(rejectedTemplate));
    const json = await runCli(
      ["templates", "get", rejectedTemplate.id, "-w", workspaceId, "--json"],
      {
        env: api.env,
        dispatcher: api.agent,
      },
    );
    expect(JSON.parse(json.stdout)).toEqual(rejectedTemplate);
  });

  it("exits 4 for an unknown template", async () => {
    stubGet("tpl_x", 404, {
      status: "error",
      error_code: "not_found",
      message: "Template 'tpl_x' was not found.",
    });
    const run = await runCli(["templates", "get", "tpl_x", "-w", workspaceId], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("Template 'tpl_x' was not found. (not_found, HTTP 404)");
  });
});
