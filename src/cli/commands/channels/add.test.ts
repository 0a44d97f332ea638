import { afterEach, describe, expect, it } from "vitest";
import {
  channel,
  envelope,
  errorBody,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/channels`;

describe("reseller channels add", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  function stubAdd(status = 201, answer: unknown = envelope(channel)) {
    return stubRequest(api, "POST", path, answer, { status });
  }

  it("connects the number and names the channel id to use", async () => {
    const sent = stubAdd();
    const run = await runCli(
      ["channels", "add", "--phone", "+4915112340000", "--name", "Main number"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(sent.body()).toEqual({ phone: "+4915112340000", name: "Main number" });
    expect(run.stdout).toContain("id\tch_01main\n");
    expect(run.stderr).toContain("Connected +4915112340000 as channel ch_01main");
    expect(run.stderr).toContain("reseller campaigns create --channel ch_01main");
  });

  it("prints only the id with -q", async () => {
    stubAdd();
    const run = await runCli(
      ["channels", "add", "--phone", "+4915112340000", "--name", "Main", "-q"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.stdout).toBe("ch_01main\n");
    expect(run.stderr).toBe("");
  });

  it("is a usage error naming the missing flags without a terminal, sending nothing", async () => {
    const run = await runCli(["channels", "add", "--name", "Main"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Missing --phone.");
    const national = await runCli(["channels", "add", "--phone", "4915112340099"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(national.code).toBe(2);
    expect(national.stderr).toContain("--phone: '4915112340099' is not in E.164");
  });

  it("asks for what is missing at a terminal", async () => {
    const sent = stubAdd();
    const prompter = scriptedPrompter({ "Number to connect": "+4915112340000", Name: "Shop" });
    const run = await runCli(["channels", "add"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(prompter.asked).toHaveLength(2);
    expect(sent.body()).toEqual({ phone: "+4915112340000", name: "Shop" });
  });

  it("exits 5 with the service's field error for a number already connected", async () => {
    stubAdd(
      409,
      errorBody("channel_exists", "phone: is already connected as channel ch_01main", [
        { field: "phone", message: "is already connected as channel ch_01main" },
      ]),
    );
    const run = await runCli(["channels", "add", "--phone", "+4915112340000", "--name", "Main"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("phone: is already connected as channel ch_01main");
  });
});
