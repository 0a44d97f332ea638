import { afterEach, describe, expect, it } from "vitest";
import { planList } from "../../../../test/fixtures/plans.js";
import { envelope, trialWorkspace } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller workspaces create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  /** Stubs the POST, failing the test unless the body is exactly `expected`. */
  function stubCreate(expected: Record<string, unknown>, answer: unknown = trialWorkspace) {
    let sent: unknown;
    api.pool
      .intercept({
        path: "/api/v1/workspaces",
        method: "POST",
        headers: (h: Record<string, string>) => /^[0-9a-f-]{36}$/.test(h["idempotency-key"] ?? ""),
        body: (body: string) => {
          sent = JSON.parse(body);
          return true;
        },
      })
      .reply(201, envelope(answer), { headers: jsonHeaders });
    return () => expect(sent).toEqual(expected);
  }

  it("takes --plan as a slug from `plans list` too, sending the plan's id", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
      .reply(200, planList, { headers: jsonHeaders });
    const check = stubCreate({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      plan_id: "2",
      send_invitation: false,
    });
    const run = await runCli(
      [
        ...["workspaces", "create", "--name", "Acme Bakery", "--email", "owner@acme.test"],
        ...["--plan", "starter", "--no-invite"],
      ],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    check();
  });

  it("sends name, contact_email, plan_id and send_invitation, and shows the new record", async () => {
    const check = stubCreate({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      plan_id: "1",
      send_invitation: true,
    });
    const run = await runCli(
      [
        "workspaces",
        "create",
        "--name",
        "Acme Bakery",
        "--email",
        "owner@acme.test",
        "--plan",
        "1",
      ],
      { tty: true, env: { ...api.env, NO_COLOR: "1" }, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    check();
    expect(run.stdout).toMatch(/Id:\s+ws_01trial/);
    expect(run.stdout).toMatch(/Status:\s+trial/);
    expect(run.stderr).toContain(
      "Created workspace ws_01trial (Acme Bakery), status trial until 2026-12-06 09:30 UTC.",
    );
    expect(run.stderr).toContain("Invitation sent to owner@acme.test.");
    expect(run.stderr).toContain("reseller workspaces use ws_01trial");
  });

  it("sends send_invitation false with --no-invite and omits plan_id without --plan", async () => {
    const check = stubCreate(
      { name: "Acme", contact_email: "owner@acme.test", send_invitation: false },
      { ...trialWorkspace, invitation: { sent: false, sent_at: null } },
    );
    const run = await runCli(
      ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "--no-invite"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    check();
    expect(run.stderr).toContain("No invitation sent (--no-invite).");
  });

  it("says when the service answered from an earlier run with the same --idempotency-key, not with --json", async () => {
    for (const json of [false, true]) {
      api.pool
        .intercept({ path: "/api/v1/workspaces", method: "POST" })
        .reply(201, envelope(trialWorkspace), {
          headers: { ...jsonHeaders, "idempotent-replayed": "true" },
        });
      const run = await runCli(
        [
          ...["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test"],
          ...["--idempotency-key", "acme-1", ...(json ? ["--json"] : [])],
        ],
        { env: api.env, dispatcher: api.agent },
      );
      expect(run.code).toBe(0);
      const note = "had already done this POST /api/v1/workspaces under this idempotency key";
      if (json) expect(run.stderr).not.toContain(note);
      else expect(run.stderr).toContain(note);
    }
  });

  it("refuses an empty --plan as a usage error before any request", async () => {
    for (const plan of ["", "  "]) {
      const run = await runCli(
        ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "--plan", plan],
        { env: api.env, dispatcher: api.agent },
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("The plan must not be empty.");
    }
  });

  it("prints only the service's data with --json", async () => {
    stubCreate({ name: "Acme", contact_email: "owner@acme.test", send_invitation: true });
    const run = await runCli(
      ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "--json"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(JSON.parse(run.stdout)).toEqual(trialWorkspace);
    expect(run.stderr).toBe("");
  });

  it("prints the new id alone with --quiet, for scripts", async () => {
    stubCreate({ name: "Acme", contact_email: "owner@acme.test", send_invitation: true });
    const run = await runCli(
      ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "-q"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.stdout).toBe("ws_01trial\n");
  });

  it("asks for a missing name and email at a terminal", async () => {
    const check = stubCreate({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      send_invitation: true,
    });
    const prompter = scriptedPrompter({
      "Workspace name": "  Acme Bakery ",
      "Contact email": "owner@acme.test",
    });
    const run = await runCli(["workspaces", "create"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    check();
    expect(prompter.asked).toEqual(["Workspace name", "Contact email"]);
  });

  it("asks only for what is missing", async () => {
    stubCreate({ name: "Acme", contact_email: "owner@acme.test", send_invitation: true });
    const prompter = scriptedPrompter({ "Contact email": "owner@acme.test" });
    const run = await runCli(["workspaces", "create", "--name", "Acme"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toEqual(["Contact email"]);
  });

  it("is a usage error naming the flag without a terminal, before any request", async () => {
    const noName = await runCli(["workspaces", "create", "--email", "owner@acme.test"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("Error: Missing --name.");
    const noEmail = await runCli(["workspaces", "create", "--name", "Acme"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain("Error: Missing --email.");
  });

  it("refuses an email or a name the service would refuse before any request, naming the flag (exit 2)", async () => {
    const badEmail = await runCli(
      ["workspaces", "create", "--name", "Acme", "--email", "notanemail"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toContain("--email is not an email address: 'notanemail'.");
    const longName = await runCli(
      ["workspaces", "create", "--name", "x".repeat(500), "--email", "owner@acme.test"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(longName.code).toBe(2);
    expect(longName.stderr).toContain("Invalid --name:");
  });

  it("never asks when CI is set, even at a terminal (to any value)", async () => {
    for (const ci of ["true", "1", "false"]) {
      const run = await runCli(["workspaces", "create"], {
        tty: true,
        env: { ...api.env, CI: ci },
        dispatcher: api.agent,
        prompter: scriptedPrompter({}),
      });
      expect(run.code, `CI=${ci}`).toBe(2);
      expect(run.stderr).toContain("Missing --name, --email.");
    }
  });

  it("exits 6 with the field named when the service refuses the plan", async () => {
    api.pool.intercept({ path: "/api/v1/workspaces", method: "POST" }).reply(
      422,
      {
        status: "error",
        error_code: "validation_failed",
        message: "The request has invalid fields.",
        details: [{ field: "plan_id", message: "no plan has the id '999'" }],
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(
      ["workspaces", "create", "--name", "Acme", "--email", "owner@acme.test", "--plan", "999"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("plan_id: no plan has the id '999'");
  });
});
