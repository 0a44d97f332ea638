import { afterEach, describe, expect, it } from "vitest";
import { listEnvelope } from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const endpoint = {
  id: "we_01endpoint",
  url: "https://crm.example.com/hooks",
  events: ["*"],
  description: null,
  enabled: true,
  secret_hint: "whsec_…9c2d",
  created_at: "2026-11-27T09:00:00Z",
  updated_at: "2026-11-27T09:00:00Z",
};

describe("reseller webhooks list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  const list = (data: unknown[]) => {
    api.pool
      .intercept({ path: /^\/api\/v1\/webhook-endpoints/, method: "GET" })
      .reply(200, listEnvelope(data), { headers: jsonHeaders });
    return runCli(["webhooks", "list"], { env: api.env, dispatcher: api.agent });
  };

  it("shows what each endpoint still owes and its latest answer, last on the line", async () => {
    const run = await list([
      {
        ...endpoint,
        pending_deliveries: 3,
        last_attempt: {
          id: "wa_01",
          event_id: "evt_01",
          event_type: "workspace.created",
          attempt: 2,
          status_code: 500,
          duration_ms: 12,
          error: "the receiver answered 500",
          delivered: false,
          created_at: "2026-11-27T09:05:00Z",
        },
      },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^we_01endpoint\thttps:\/\/crm\.example\.com\/hooks\t.*\t3\t500\n$/);
  });

  it("reads a service from before these fields as owing nothing and never tried", async () => {
    const run = await list([endpoint]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\t0\t\n$/);
  });
});
