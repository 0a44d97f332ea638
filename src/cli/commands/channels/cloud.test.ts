import { afterEach, describe, expect, it } from "vitest";
import {
  cloudChannel,
  envelope,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/channels`;

describe("reseller channels add --provider whatsapp_cloud", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  it("sends the Graph ids and the token read from stdin, and shows the verified name", async () => {
    const sent = stubRequest(api, "POST", path, envelope(cloudChannel), { status: 201 });
    const run = await runCli(
      [
        "channels",
        "add",
        "--provider",
        "whatsapp_cloud",
        "--phone-number-id",
        "106540352242922",
        "--waba-id",
        "102290129340398",
        "--name",
        "Shop",
        "--access-token-stdin",
      ],
      { env: env(), dispatcher: api.agent, stdin: "EAAG-secret-token\n" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sent.body()).toEqual({
      provider: "whatsapp_cloud",
      name: "Shop",
      phone_number_id: "106540352242922",
      waba_id: "102290129340398",
      access_token: "EAAG-secret-token",
    });
    expect(run.stderr).toContain("verified as Acme Shop");
    expect(run.stdout + run.stderr).not.toContain("EAAG-secret-token");
  });

  it("is a usage error naming what is missing when there is no terminal", async () => {
    const run = await runCli(
      ["channels", "add", "--provider", "whatsapp_cloud", "--name", "Shop"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--phone-number-id");
    expect(run.stderr).toContain("--access-token-stdin");
  });
});

describe("reseller channels get", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("shows a cloud channel's verified name and quality rating", async () => {
    stubRequest(api, "GET", `${path}/ch_01cloud`, envelope(cloudChannel));
    const run = await runCli(["channels", "get", "ch_01cloud"], {
      env: { ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("verified_name\tAcme Shop\n");
    expect(run.stdout).toContain("quality_rating\tGREEN\n");
  });
});
