import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { envelope, trialWorkspace } from "../../../../test/fixtures/workspaces.js";
import { runCli, tempConfigDir } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const page = (data: unknown[], nextCursor: string | null) => ({
  status: "success",
  data,
  meta: { pagination: { page: 1, per_page: 2, total: 3, total_pages: 2, next_cursor: nextCursor } },
});

describe("reseller api", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("prints the whole response body, indented at a terminal", async () => {
    const body = envelope(trialWorkspace);
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial",
        method: "GET",
        headers: { authorization: "Bearer rsk_test_token_0000" },
      })
      .reply(200, body, { headers: jsonHeaders });
    const run = await runCli(["api", "GET", "/api/v1/workspaces/ws_01trial"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
  });

  it("prints one compact line when piped, and takes a path without / under /api/v1 and a method in any case", async () => {
    const body = envelope([trialWorkspace]);
    api.pool
      .intercept({ path: "/api/v1/workspaces?status=trial", method: "GET" })
      .reply(200, body, { headers: jsonHeaders });
    // The method in any case, as curl users type it.
    const run = await runCli(["api", "get", "workspaces?status=trial"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe(`${JSON.stringify(body)}\n`);
  });

  it("sends --data as a JSON body with an Idempotency-Key on POST", async () => {
    let sent: unknown;
    api.pool
      .intercept({
        path: "/api/v1/workspaces",
        method: "POST",
        headers: (h: Record<string, string>) =>
          h["content-type"] === "application/json" &&
          /^[0-9a-f-]{36}$/.test(h["idempotency-key"] ?? ""),
        body: (text: string) => {
          sent = JSON.parse(text);
          return true;
        },
      })
      .reply(201, envelope(trialWorkspace), { headers: jsonHeaders });
    const run = await runCli(
      ["api", "POST", "workspaces", "--data", '{"name":"Acme","contact_email":"o@acme.test"}'],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(sent).toEqual({ name: "Acme", contact_email: "o@acme.test" });
  });

  it("reads --data from a file with @file and from standard input with -", async () => {
    // Each stub answers only its exact body; done() fails if either was not sent.
    for (const name of ["From file", "From stdin"]) {
      api.pool
        .intercept({
          path: "/api/v1/workspaces/ws_01trial",
          method: "PATCH",
          body: JSON.stringify({ name }),
        })
        .reply(200, envelope(trialWorkspace), { headers: jsonHeaders });
    }
    const file = join(tempConfigDir(), "patch.json");
    writeFileSync(file, '{"name":"From file"}');
    const fromFile = await runCli(["api", "PATCH", "workspaces/ws_01trial", "--data", `@${file}`], {
      env: api.env,
      dispatcher: api.agent,
    });
    const fromStdin = await runCli(["api", "PATCH", "workspaces/ws_01trial", "--data", "-"], {
      env: api.env,
      dispatcher: api.agent,
      stdin: '{"name":"From stdin"}',
    });
    expect([fromFile.code, fromStdin.code]).toEqual([0, 0]);
  });

  it("follows next_cursor with --paginate and prints every item as one array", async () => {
    const first = { ...trialWorkspace, id: "ws_1" };
    const second = { ...trialWorkspace, id: "ws_2" };
    const third = { ...trialWorkspace, id: "ws_3" };
    api.pool
      .intercept({ path: "/api/v1/workspaces?per_page=2", method: "GET" })
      .reply(200, page([first, second], "c2"), { headers: jsonHeaders });
    api.pool
      .intercept({ path: "/api/v1/workspaces?per_page=2&cursor=c2", method: "GET" })
      .reply(200, page([third], null), { headers: jsonHeaders });
    const run = await runCli(["api", "GET", "/api/v1/workspaces?per_page=2", "--paginate"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([first, second, third]);
  });

  it("drops the path's page once --paginate goes on by cursor, and keeps its other parameters", async () => {
    const first = { ...trialWorkspace, id: "ws_1" };
    const second = { ...trialWorkspace, id: "ws_2" };
    api.pool
      .intercept({ path: "/api/v1/workspaces?page=3&per_page=1&status=a&status=b", method: "GET" })
      .reply(200, page([first], "c4"), { headers: jsonHeaders });
    api.pool
      .intercept({
        path: "/api/v1/workspaces?per_page=1&status=a&status=b&cursor=c4",
        method: "GET",
      })
      .reply(200, page([second], null), { headers: jsonHeaders });
    const run = await runCli(
      ["api", "GET", "workspaces?page=3&per_page=1&status=a&status=b", "--paginate"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([first, second]);
  });

  it("prints the ids of the items with --quiet", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces", method: "GET" })
      .reply(200, page([trialWorkspace], null), { headers: jsonHeaders });
    const run = await runCli(["api", "GET", "workspaces", "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("ws_01trial\n");
  });

  it("prints nothing for an empty answer", async () => {
    api.pool.intercept({ path: "/api/v1/tokens/tok_1", method: "DELETE" }).reply(204, "");
    const run = await runCli(["api", "DELETE", "tokens/tok_1"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
  });

  it("exits as any command would on an error answer: 4 for not found, with the error on stderr", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_x", method: "GET" })
      .reply(
        404,
        { status: "error", error_code: "not_found", message: "No workspace ws_x." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["api", "GET", "workspaces/ws_x", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("Error: No workspace ws_x. (not_found, HTTP 404)");
    expect(JSON.parse(run.stdout).error.error_code).toBe("not_found");
  });

  it("says how paths are read when a path with a leading / names no endpoint (/plans)", async () => {
    api.pool
      .intercept({ path: "/plans", method: "GET" })
      .reply(
        404,
        { status: "error", error_code: "not_found", message: "No endpoint GET /plans." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["api", "GET", "/plans"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      "Hint: A path that starts with / is sent as given; without it, it goes under /api/v1/ (`reseller api GET plans`).",
    );
  });

  it("exits 6 when the service refuses the method itself (405), as it does for a bad body", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_x", method: "DELETE" })
      .reply(
        405,
        { status: "error", error_code: "method_not_allowed", message: "DELETE is not allowed." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["api", "DELETE", "workspaces/ws_x"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("method_not_allowed");
  });

  it("refuses bad input before any request: invalid JSON, a URL, --data on GET, --paginate on POST, --csv", async () => {
    const cases = [
      [["api", "POST", "workspaces", "--data", "{name:"], "--data is not valid JSON"],
      [["api", "GET", "https://evil.test/api/v1/plans"], "Give a path such as /api/v1/plans"],
      [["api", "GET", "plans", "--data", "{}"], "--data needs POST, PUT, PATCH or DELETE"],
      [["api", "POST", "workspaces", "--paginate"], "--paginate follows the pages of a GET"],
      [["api", "POST", "workspaces", "--data", "@/no/such/file.json"], "Cannot read --data @"],
      [["api", "GET", "workspaces", "--csv"], "--csv is for list commands"],
    ] as const;
    for (const [argv, message] of cases) {
      const run = await runCli([...argv], { env: api.env, dispatcher: api.agent });
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr, argv.join(" ")).toContain(message);
    }
  });

  it("refuses --paginate on an answer whose data is not a list", async () => {
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial", method: "GET" })
      .reply(200, envelope(trialWorkspace), { headers: jsonHeaders });
    const run = await runCli(["api", "GET", "workspaces/ws_01trial", "--paginate"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--paginate needs a list");
  });
});
