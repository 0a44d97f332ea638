import { afterEach, describe, expect, it } from "vitest";
import {
  approvedTemplate,
  draftTemplate,
  envelope,
  errorBody,
  pendingTemplate,
  workspaceId,
} from "../../../../test/fixtures/templates.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi, replyAfterCtrlC } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/templates`;

describe("reseller templates submit", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  function stubSubmit(id: string, status: number, body: object) {
    api.pool
      .intercept({ path: `${path}/${id}/submit`, method: "POST" })
      .reply(status, body, { headers: jsonHeaders });
  }

  it("submits a draft and says how to follow the review", async () => {
    stubSubmit(draftTemplate.id, 200, envelope({ ...pendingTemplate, id: draftTemplate.id }));
    const run = await runCli(["templates", "submit", draftTemplate.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("status\tpending\n");
    expect(run.stderr).toContain(
      `Submitted order_update (en_US) for review as ${draftTemplate.id}`,
    );
  });

  it("waits for the decision with --wait and shows the preview at a terminal", async () => {
    stubSubmit(pendingTemplate.id, 200, envelope(pendingTemplate));
    api.pool
      .intercept({ path: `${path}/${pendingTemplate.id}`, method: "GET" })
      .reply(200, envelope(approvedTemplate), { headers: jsonHeaders });
    const run = await runCli(["templates", "submit", pendingTemplate.id, "--wait"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Status:\s+approved/);
    expect(run.stdout).toContain("│ Hi Ada, your order A-1042 has shipped.");
  });

  it("stops waiting on Ctrl-C with exit 130, saying the review goes on", async () => {
    stubSubmit(pendingTemplate.id, 200, envelope(pendingTemplate));
    api.pool
      .intercept({ path: `${path}/${pendingTemplate.id}`, method: "GET" })
      .reply(replyAfterCtrlC(envelope(pendingTemplate))); // Ctrl-C while the review is awaited
    const run = await runCli(["templates", "submit", pendingTemplate.id, "--wait"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("Stopped waiting");
    expect(run.stderr).toContain("the review goes on");
    expect(process.listenerCount("SIGINT")).toBe(0);
  });

  it("exits 5 when the template is not a draft", async () => {
    stubSubmit(
      pendingTemplate.id,
      409,
      errorBody("template_not_draft", "Template 'tpl_01order' is pending, not a draft."),
    );
    const run = await runCli(["templates", "submit", pendingTemplate.id], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("(template_not_draft, HTTP 409)");
  });
});
