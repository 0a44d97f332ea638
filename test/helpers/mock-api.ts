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

/**
 * A reply that presses Ctrl-C (emits SIGINT) as the request is answered, then answers `body` as
 * JSON: for commands that must stop waiting at that moment. `later` presses it that many ms after,
 * while the answer is still on its way (with `.delay()`).
 */
export function replyAfterCtrlC(body: object, statusCode = 200, later?: number) {
  return () => {
    if (later === undefined) process.emit("SIGINT");
    else setTimeout(() => process.emit("SIGINT"), later);
    return { statusCode, data: body, responseOptions: { headers: jsonHeaders } };
  };
}
