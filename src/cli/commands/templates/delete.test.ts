import { afterEach, describe, expect, it } from "vitest";
import {
  approvedTemplate,
  draftTemplate,
  envelope,
  errorBody,
  workspaceId,
} from "../../../../test/fixtures/templates.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const path = (id: string) => `/api/v1/workspaces/${workspaceId}/templates/${id}`;
const deleted = {
  id: draftTemplate.id,
  name: draftTemplate.name,
  language: draftTemplate.language,
  deleted: true,
};

describe("reseller templates delete", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  function stubDelete(id: string, status = 200, body: object = envelope(deleted)) {
    api.pool
      .intercept({ path: path(id), method: "DELETE" })
      .reply(status, body, { headers: jsonHeaders });
  }

  it("needs --yes without a terminal, and sends nothing", async () => {
    const run = await runCli(["templates", "delete", draftTemplate.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Delete template ${draftTemplate.id}: confirmation needed`);
    expect(run.stderr).toContain("Pass --yes");
  });

  it("deletes with --yes", async () => {
    stubDelete(draftTemplate.id);
    const run = await runCli(["templates", "delete", draftTemplate.id, "--yes"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("deleted\ttrue\n");
    expect(run.stderr).toContain("Deleted template order_update (en_US).");
  });

  it("names the template and asks at a terminal; no deletes nothing", async () => {
    api.pool
      .intercept({ path: path(draftTemplate.id), method: "GET" })
      .reply(200, envelope(draftTemplate), { headers: jsonHeaders });
    const prompter = scriptedPrompter({ "Delete template": false });
    const run = await runCli(["templates", "delete", draftTemplate.id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual([
      `Delete template ${draftTemplate.id} (order_update (en_US), draft)?`,
    ]);
    expect(run.stderr).toContain("Cancelled");
  });

  it("refuses an approved template at a terminal before asking, exit 5, sending no delete", async () => {
    api.pool
      .intercept({ path: path(approvedTemplate.id), method: "GET" })
      .reply(200, envelope(approvedTemplate), { headers: jsonHeaders });
    const prompter = scriptedPrompter({});
    const run = await runCli(["templates", "delete", approvedTemplate.id], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(5);
    expect(prompter.asked).toEqual([]);
    expect(run.stderr).toContain("only a draft or rejected template can be deleted");
  });

  it("exits 5 with the service's refusal with --yes, where nothing was read first", async () => {
    stubDelete(
      approvedTemplate.id,
      409,
      errorBody(
        "template_not_deletable",
        "Template 'tpl_01order' is approved; only a draft or rejected template can be deleted.",
      ),
    );
    const run = await runCli(["templates", "delete", approvedTemplate.id, "--yes"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("(template_not_deletable, HTTP 409)");
  });
});
