import { afterEach, describe, expect, it } from "vitest";
import { envelope, stubRequest, workspaceId } from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = "/api/v1/sandbox/inbound";
const from = "+4915112345671";

describe("reseller sandbox inbound", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  it("sends the reply with the workspace and says what changed", async () => {
    const reply = stubRequest(
      api,
      "POST",
      path,
      envelope({ contact_id: "ct_01ada", action: "opted_out", opt_in_status: "opted_out" }),
    );
    const run = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(reply.body()).toEqual({ workspace_id: workspaceId, from, text: "STOP" });
    expect(run.stdout).toBe("contact_id\tct_01ada\naction\topted_out\nopt_in_status\topted_out\n");
    expect(run.stderr).toBe("Contact ct_01ada is now opted_out.\n");
  });

  it("prints the contact's id with --quiet, and nothing when no contact has the number", async () => {
    const answer = { contact_id: "ct_01ada", action: "opted_out", opt_in_status: "opted_out" };
    stubRequest(api, "POST", path, envelope(answer));
    const quiet = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP", "-q"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(quiet.stdout).toBe("ct_01ada\n");
    stubRequest(
      api,
      "POST",
      path,
      envelope({ contact_id: null, action: "none", opt_in_status: null }),
    );
    const none = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP", "-q"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(none.stdout).toBe("");
  });

  it("says when the text is no keyword or the number no contact; --json passes the data", async () => {
    stubRequest(
      api,
      "POST",
      path,
      envelope({ contact_id: "ct_01ada", action: "none", opt_in_status: "opted_in" }),
    );
    const other = await runCli(
      ["sandbox", "inbound", "-w", workspaceId, "--from", from, "--text", "thanks!"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(other.stderr).toContain("'thanks!' is not a consent keyword");
    const unknown = { contact_id: null, action: "none", opt_in_status: null };
    stubRequest(api, "POST", path, envelope(unknown));
    const json = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP", "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual(unknown);
    stubRequest(api, "POST", path, envelope(unknown));
    const plain = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(plain.stderr).toContain(`No contact of workspace ${workspaceId} has the number ${from}`);
  });

  it("names the missing flags and needs a workspace, before any request", async () => {
    const run = await runCli(["sandbox", "inbound", "--text", "STOP"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Missing --from.");
    const both = await runCli(["sandbox", "inbound"], { env: env(), dispatcher: api.agent });
    expect(both.stderr).toContain("Missing --from and --text.");
    const noWorkspace = await runCli(["sandbox", "inbound", "--from", from, "--text", "STOP"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(noWorkspace.code).toBe(2);
    expect(noWorkspace.stderr).toContain("No workspace given.");
  });

  it("refuses a --from that is not E.164 before any request, exit 2 as for every phone flag", async () => {
    const run = await runCli(["sandbox", "inbound", "--from", "4915112345671", "--text", "STOP"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--from: '4915112345671' is not in E.164");
  });
});
