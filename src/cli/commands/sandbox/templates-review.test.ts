import { afterEach, describe, expect, it } from "vitest";
import {
  approvedTemplate,
  envelope,
  rejectedTemplate,
} from "../../../../test/fixtures/templates.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller sandbox templates review", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubReview(id: string, expected: unknown, answer: unknown) {
    let sent: unknown;
    api.pool
      .intercept({
        path: `/api/v1/sandbox/templates/${id}/review`,
        method: "POST",
        body: (body: string) => {
          sent = JSON.parse(body);
          return true;
        },
      })
      .reply(200, envelope(answer), { headers: jsonHeaders });
    return () => expect(sent).toEqual(expected);
  }

  it("approves the template and says so on stderr", async () => {
    const check = stubReview(approvedTemplate.id, { decision: "approve" }, approvedTemplate);
    const run = await runCli(["sandbox", "templates", "review", approvedTemplate.id, "--approve"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    check();
    expect(run.stderr).toContain("The sandbox operator approved order_update (en_US).");
  });

  it("takes -w as every workspace command does, and decides the template of that workspace", async () => {
    const ws = approvedTemplate.workspace_id;
    api.pool
      .intercept({
        path: `/api/v1/workspaces/${ws}/templates/${approvedTemplate.id}`,
        method: "GET",
      })
      .reply(200, envelope(approvedTemplate), { headers: jsonHeaders });
    const check = stubReview(approvedTemplate.id, { decision: "approve" }, approvedTemplate);
    const run = await runCli(
      ["sandbox", "templates", "review", approvedTemplate.id, "--approve", "-w", ws],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code, run.stderr).toBe(0);
    check();
  });

  it("decides nothing when the template is not in the workspace named with -w (exit 4)", async () => {
    api.pool
      .intercept({
        path: `/api/v1/workspaces/ws_other/templates/${approvedTemplate.id}`,
        method: "GET",
      })
      .reply(
        404,
        {
          status: "error",
          error_code: "not_found",
          message: `Template '${approvedTemplate.id}' was not found in this workspace.`,
        },
        { headers: jsonHeaders },
      );
    const run = await runCli(
      ["sandbox", "templates", "review", approvedTemplate.id, "--approve", "-w", "ws_other"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("was not found in this workspace");
  });

  it("rejects with a reason and a detail", async () => {
    const check = stubReview(
      rejectedTemplate.id,
      { decision: "reject", reason: "SCAM", detail: "asks for a PIN" },
      rejectedTemplate,
    );
    const run = await runCli(
      [
        "sandbox",
        "templates",
        "review",
        rejectedTemplate.id,
        "--reject",
        "SCAM",
        "--detail",
        "asks for a PIN",
      ],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    check();
  });

  it("needs exactly one decision, and a reason from the operator's list", async () => {
    for (const args of [
      [],
      ["--approve", "--pause"],
      ["--approve", "--detail", "x"],
      ["--reject", "UGLY"],
    ]) {
      const run = await runCli(["sandbox", "templates", "review", "tpl_1", ...args], {
        env: api.env,
      });
      expect(run.code, args.join(" ")).toBe(2);
    }
  });
});
