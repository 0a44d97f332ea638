import { MockAgent } from "undici";

export const mockBaseUrl = "http://api.reseller.test";

/** An HTTP layer that serves stubs and refuses the network; `done()` fails on unused stubs. */
export function mockApi() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(mockBaseUrl);
  return {
    agent,
    pool,
    env: { RESELLER_BASE_URL: mockBaseUrl, RESELLER_TOKEN: "rsk_test_token_0000" },
    done: () => agent.assertNoPendingInterceptors(),
  };
}

/** The headers the service puts on every answer. */
export const jsonHeaders = { "content-type": "application/json", "x-request-id": "req_test" };
