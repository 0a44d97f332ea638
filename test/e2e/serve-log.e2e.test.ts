import { describe, expect, it } from "vitest";
import { humanLogLine } from "../../src/service/human-log.js";
import { startServe } from "../helpers/serve.js";

/** Reads what the child wrote to stdout until `done` holds (or 10 s pass). */
function collectStdout(
  service: Awaited<ReturnType<typeof startServe>>,
  done: (t: string) => boolean,
) {
  let text = "";
  return new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve(text), 10_000);
    service.process.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (done(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}

describe("reseller serve's log", () => {
  it("writes one readable line per request with --log-format pretty (the default at a terminal)", async () => {
    const service = await startServe({ args: ["--log-level", "info", "--log-format", "pretty"] });
    const lines = collectStdout(service, (t) => t.includes("/api/v1/plans"));
    await fetch(`${service.url}/api/v1/plans`);
    const text = await lines;
    await service.stop();
    expect(text).toMatch(/^\d\d:\d\d:\d\d {2}INFO {3}GET \/api\/v1\/plans \d{3} [\d.]+ ms/m);
    expect(text).not.toContain('{"level"');
  });

  it("writes pino JSON lines when piped", async () => {
    const service = await startServe({ args: ["--log-level", "info"] });
    const lines = collectStdout(service, (t) => t.includes("/api/v1/plans"));
    await fetch(`${service.url}/api/v1/plans`);
    const text = await lines;
    await service.stop();
    const request = text
      .split("\n")
      .filter((l) => l.includes("/api/v1/plans"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    expect(request).toMatchObject({ level: 30, method: "GET", url: "/api/v1/plans", status: 401 });
  });
});

describe("a readable log line", () => {
  const at = new Date(2026, 0, 2, 9, 5, 7).getTime();

  it("shows local time, level and the request in a few words", () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      pid: 1,
      hostname: "h",
      reqId: "req_1",
      method: "POST",
      url: "/api/v1/x",
      status: 201,
      ms: 2.5,
      token: "tok_1",
      msg: "request",
    });
    expect(humanLogLine(line)).toBe(
      "09:05:07  INFO   POST /api/v1/x 201 2.5 ms  token tok_1  (req_1)\n",
    );
  });

  it("keeps other fields as key=value and prints an error's stack", () => {
    const line = JSON.stringify({
      level: 50,
      time: at,
      msg: "job failed",
      kind: "import",
      err: { message: "boom", stack: "Error: boom\n    at x" },
    });
    expect(humanLogLine(line)).toBe(
      "09:05:07  ERROR  job failed  kind=import\nError: boom\n    at x\n",
    );
  });
});
