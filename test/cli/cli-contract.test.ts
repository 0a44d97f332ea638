// Behaviours of docs/cli-contract.md that an audit found missing, each checked as a user sees it.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { anna, base, ws } from "../fixtures/contacts.js";
import { planMeta, starterPlan } from "../fixtures/plans.js";
import { trialWorkspace } from "../fixtures/workspaces.js";
import { runCli } from "../helpers/cli.js";
import { jsonHeaders, mockApi, mockBaseUrl } from "../helpers/mock-api.js";
import { binPath } from "../helpers/serve.js";

const workspace = ws;
const contactsPath = `${base}/contacts`;

/** A connection the service refused, as undici reports it. */
function refused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8420"), { code: "ECONNREFUSED" });
}

describe("usage errors caught while parsing the command line", () => {
  it.each([
    [["plans", "list", "--bogus"], "unknown option '--bogus'"],
    [["plans", "get"], "missing required argument 'id'"],
    [["plans", "list", "--billing-period", "weekly"], "argument 'weekly' is invalid"],
    [["plnas", "list"], "unknown command 'plnas'"],
  ])("with --json, %j also prints the error as JSON on stdout and exits 2", async (argv, said) => {
    const run = await runCli([...argv, "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(said);
    const printed = JSON.parse(run.stdout) as { error: Record<string, unknown> };
    expect(Object.keys(printed)).toEqual(["error"]);
    expect(printed.error).toEqual({
      status: null,
      error_code: "usage",
      message: expect.stringContaining(said),
      details: [],
      request_id: null,
    });
  });

  it("with --json, a group named without its command shows its help and prints the error as JSON", async () => {
    const run = await runCli(["workspaces", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Usage: reseller workspaces");
    expect(JSON.parse(run.stdout).error).toMatchObject({
      error_code: "usage",
      message: expect.stringContaining("missing command"),
    });
  });

  it("`reseller help` and `reseller help <group>` show help and exit 0, as --help does", async () => {
    for (const args of [["help"], ["help", "plans"], ["plans", "help", "list"]]) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout + run.stderr).toContain("Usage: reseller");
    }
  });

  it("without --json leaves stdout empty and says it on stderr only", async () => {
    const run = await runCli(["plans", "list", "--bogus"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("unknown option '--bogus'");
  });

  it.each([
    [
      ["templates", "create", "-w", "ws_1", "--file", "t.json", "--draft", "--wait"],
      "--wait waits for a review, and a --draft is not submitted for one.",
    ],
    [
      ["templates", "submit", "tpl_1", "-w", "ws_1", "--timeout", "30"],
      "--timeout is how long --wait waits; give it with --wait.",
    ],
    [
      ["channels", "add", "-w", "ws_1", "--phone", "+4915112340000", "--phone-number-id", "5"],
      "--phone-number-id is for --provider whatsapp_cloud only.",
    ],
    [
      ["login", "--token-stdin", "--token", "rsk_x", "--base-url", "http://127.0.0.1:9"],
      "Give the token once: --token-stdin or --token, not both.",
    ],
  ])(
    "refuses flags that would be dropped without a word: %j (exit 2, nothing sent)",
    async (argv, said) => {
      const run = await runCli(argv, {
        env: { RESELLER_TOKEN: "rsk_x", RESELLER_BASE_URL: "http://127.0.0.1:9" },
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(said);
    },
  );

  it("does not take a --json that follows `--` (words for another command) as its own", async () => {
    const run = await runCli(["plans", "list", "--bogus", "--", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
  });
});

describe("contacts upsert when the service keeps an opt-out", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  const notice = "the contact opted out and stays opted out";
  const contact = { ...anna, opt_in_status: "opted_out" as const };
  const resubscribeHint = `To re-subscribe them with consent given again: reseller contacts update ct_01anna --opt-in opted_in --opt-in-source "<where the consent came from>" -w ${workspace}`;

  function stubUpsert() {
    api.pool.intercept({ path: contactsPath, method: "POST" }).reply(
      200,
      {
        status: "success",
        data: contact,
        meta: { notices: [{ field: "opt_in_status", message: notice }] },
      },
      { headers: jsonHeaders },
    );
  }

  const argv = [
    "contacts",
    "upsert",
    "-w",
    workspace,
    "--phone",
    contact.phone,
    "--opt-in",
    "opted_in",
  ];

  it("with --json prints only the contact on stdout and the notice on stderr", async () => {
    stubUpsert();
    const run = await runCli([...argv, "--json"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(contact);
    expect(run.stderr).toBe(`opt_in_status: ${notice}\n${resubscribeHint}\n`);
  });

  it("with --quiet prints only the id on stdout and the notice on stderr", async () => {
    stubUpsert();
    const run = await runCli([...argv, "--quiet"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ct_01anna\n");
    expect(run.stderr).toBe(`opt_in_status: ${notice}\n${resubscribeHint}\n`);
  });
});

describe("retries", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  /** The next upsert POST, noting its Idempotency-Key in `keys`. */
  const keyedUpsert = (keys: Set<string>) =>
    api.pool.intercept({
      path: contactsPath,
      method: "POST",
      headers: (h) => {
        keys.add(String(h["idempotency-key"]));
        return true;
      },
    });

  it("a GET refused while the service restarts is retried, said on stderr, and succeeds", async () => {
    api.pool.intercept({ path: "/api/v1/plans/2", method: "GET" }).replyWithError(refused());
    api.pool
      .intercept({ path: "/api/v1/plans/2", method: "GET" })
      .reply(
        200,
        { status: "success", data: starterPlan, meta: planMeta },
        { headers: jsonHeaders },
      );
    const run = await runCli(["plans", "get", "2", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(starterPlan);
    expect(run.stderr).toMatch(
      /ECONNREFUSED on GET \/api\/v1\/plans\/2; retrying in \d+\.\d s \(attempt 1\)/,
    );
  });

  it("a POST retried after a refused connection carries the same Idempotency-Key", async () => {
    // undici may ask a matcher more than once per request: collect the distinct keys seen.
    const keys = new Set<string>();
    keyedUpsert(keys).replyWithError(refused());
    keyedUpsert(keys).reply(
      201,
      { status: "success", data: anna, meta: {} },
      { headers: jsonHeaders },
    );
    const run = await runCli(
      ["contacts", "upsert", "-w", workspace, "--phone", "+4915112345678", "--quiet"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ct_01anna\n");
    expect(run.stderr).toContain("ECONNREFUSED on POST");
    expect([...keys]).toEqual([expect.stringMatching(/.+/)]);
  });

  it("a PATCH whose connection was refused is sent again: nothing reached the service", async () => {
    const path = `/api/v1/workspaces/${trialWorkspace.id}`;
    api.pool.intercept({ path, method: "PATCH" }).replyWithError(refused());
    api.pool
      .intercept({ path, method: "PATCH" })
      .reply(200, { status: "success", data: trialWorkspace, meta: {} }, { headers: jsonHeaders });
    const run = await runCli(
      ["workspaces", "update", trialWorkspace.id, "--name", "Acme", "--quiet"],
      {
        env: api.env,
        dispatcher: api.agent,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("ECONNREFUSED on PATCH");
  });

  /** `contacts upsert` of one phone with this --idempotency-key. */
  const upsertWithKey = (key: string, ...extra: string[]) =>
    runCli(
      [
        "contacts",
        "upsert",
        "-w",
        workspace,
        "--phone",
        "+4915112345678",
        "--idempotency-key",
        key,
        ...extra,
      ],
      { env: api.env, dispatcher: api.agent },
    );

  it("a POST carries --idempotency-key exactly as given, so a script's retry by curl replays it", async () => {
    const keys = new Set<string>();
    keyedUpsert(keys).reply(
      201,
      { status: "success", data: anna, meta: {} },
      { headers: jsonHeaders },
    );
    const run = await upsertWithKey("order-4711", "--quiet");
    expect(run.code).toBe(0);
    expect(keys).toEqual(new Set(["order-4711"]));
  });

  it.each([
    ["k".repeat(251), "--idempotency-key is 251 characters"],
    // A header carries ASCII only.
    ["ключ-1", "printable ASCII"],
  ])(
    "refuses an --idempotency-key the service cannot take before any request (exit 2): %#",
    async (key, said) => {
      const run = await upsertWithKey(key);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(said);
    },
  );

  it("refuses a blank --idempotency-key and a --page past the service's last, before any request (exit 2)", async () => {
    const cases = [
      [
        [
          "contacts",
          "upsert",
          "-w",
          workspace,
          "--phone",
          "+4915112345678",
          "--idempotency-key",
          "  ",
        ],
        "--idempotency-key must not be blank",
      ],
      [["contacts", "list", "-w", workspace, "--page", "1000000001"], "--page"],
    ] as const;
    for (const [argv, message] of cases) {
      const run = await runCli([...argv], { env: api.env, dispatcher: api.agent });
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });

  it("refuses an empty -w (a script's unset variable) before any request, rather than acting in the profile's workspace", async () => {
    for (const argv of [
      ["contacts", "list", "-w", ""],
      ["contacts", "list", "--workspace="],
      ["plans", "list", "--profile", ""],
      ["plans", "list", "--base-url", " "],
      ["plans", "list", "--token", ""],
    ]) {
      const run = await runCli(argv, {
        env: { ...api.env, RESELLER_WORKSPACE: workspace },
        dispatcher: api.agent,
      });
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/--(workspace|profile|base-url|token) is empty\./);
    }
    // An empty variable (or one of spaces) counts as unset, as shells and CI use it.
    for (const blank of ["", "   "]) {
      const unset = await runCli(["contacts", "list"], {
        env: { ...api.env, RESELLER_WORKSPACE: blank },
        dispatcher: api.agent,
      });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain("No workspace given.");
    }
  });

  /** An upsert whose next answer is a 409 "still running" (Retry-After 1 s), then its 201. */
  const upsertAfterStillRunning = () => {
    api.pool.intercept({ path: contactsPath, method: "POST" }).reply(
      409,
      {
        status: "error",
        error_code: "idempotency_request_in_progress",
        message: "A request with this Idempotency-Key is still being processed.",
      },
      { headers: { ...jsonHeaders, "retry-after": "1" } },
    );
    api.pool
      .intercept({ path: contactsPath, method: "POST" })
      .reply(201, { status: "success", data: anna, meta: {} }, { headers: jsonHeaders });
    return runCli(["contacts", "upsert", "-w", workspace, "--phone", anna.phone, "--quiet"], {
      env: api.env,
      dispatcher: api.agent,
    });
  };

  it("a POST whose first attempt is still running elsewhere waits for its answer instead of exit 5", async () => {
    const run = await upsertAfterStillRunning();
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ct_01anna\n");
    expect(run.stderr).toMatch(/HTTP 409 on POST .*; retrying in 1\.\d s/);
  });

  it("a POST that met a restart waits for the dead attempt's key too, after network errors spent their retries", async () => {
    for (let i = 0; i < 3; i++) {
      api.pool.intercept({ path: contactsPath, method: "POST" }).replyWithError(refused());
    }
    const run = await upsertAfterStillRunning();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("ct_01anna\n");
  });

  it("any other 409 is not retried and exits 5", async () => {
    api.pool
      .intercept({ path: contactsPath, method: "POST" })
      .reply(
        409,
        { status: "error", error_code: "plan_limit_exceeded", message: "The plan allows 500." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["contacts", "upsert", "-w", workspace, "--phone", anna.phone], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).not.toContain("retrying");
  });

  it("exits 8 once the retries are spent, the error as JSON on stdout with --json", async () => {
    for (let i = 0; i < 4; i++) {
      api.pool.intercept({ path: "/api/v1/plans/2", method: "GET" }).replyWithError(refused());
    }
    const run = await runCli(["plans", "get", "2", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(8);
    expect(run.stderr.match(/retrying in/g)).toHaveLength(3);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: null,
        error_code: "network",
        message: expect.stringContaining("ECONNREFUSED"),
        details: [],
        request_id: null,
      },
    });
  });
});

describe("exit codes of service answers", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it.each([
    [403, "insufficient_scope", 3],
    [413, "payload_too_large", 6],
    [500, "internal_error", 8],
  ])("HTTP %i (%s) exits %i with the error as JSON on stdout", async (status, errorCode, exit) => {
    api.pool
      .intercept({ path: "/api/v1/plans/2", method: "GET" })
      .reply(
        status,
        { status: "error", error_code: errorCode, message: "refused" },
        { headers: jsonHeaders },
      );
    const run = await runCli(["plans", "get", "2", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(exit);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status,
        error_code: errorCode,
        message: "refused",
        details: [],
        request_id: "req_test",
      },
    });
  });

  it("takes a token with a trailing line break (a file saved on Windows) and refuses one holding a space, before any request", async () => {
    api.pool
      .intercept({
        path: "/api/v1/plans/2",
        method: "GET",
        headers: { authorization: `Bearer ${api.env.RESELLER_TOKEN}` },
      })
      .reply(
        200,
        { status: "success", data: starterPlan, meta: planMeta },
        { headers: jsonHeaders },
      );
    const crlf = await runCli(["plans", "get", "2", "--json"], {
      env: { ...api.env, RESELLER_TOKEN: `${api.env.RESELLER_TOKEN}\r\n` },
      dispatcher: api.agent,
    });
    expect(crlf.code, crlf.stderr).toBe(0);
    for (const [flags, from] of [
      [["--token", "rsk_x €"], "--token"],
      [[], "RESELLER_TOKEN"],
    ] as const) {
      const run = await runCli(["plans", "get", "2", ...flags], {
        env: { ...api.env, RESELLER_TOKEN: "rsk_with space" },
        dispatcher: api.agent,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`Invalid token (from ${from})`);
    }
  });

  it("a 503 is retried after Retry-After, then exits 8 when it lasts", async () => {
    for (let i = 0; i < 4; i++) {
      api.pool
        .intercept({ path: "/api/v1/plans/2", method: "GET" })
        .reply(
          503,
          { status: "error", error_code: "unavailable", message: "busy" },
          { headers: { ...jsonHeaders, "retry-after": "1" } },
        );
    }
    const run = await runCli(["plans", "get", "2"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(8);
    expect(run.stderr).toMatch(
      /HTTP 503 on GET \/api\/v1\/plans\/2; retrying in 1\.\d s \(attempt 3\)/,
    );
  });
});

describe("piped records", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  const privatePlan = { ...starterPlan, is_public: false, registration_url: null };

  function stubPlan() {
    api.pool
      .intercept({ path: "/api/v1/plans/2", method: "GET" })
      .reply(
        200,
        { status: "success", data: privatePlan, meta: planMeta },
        { headers: jsonHeaders },
      );
  }

  it("leave a missing value empty instead of a dash, so scripts read it as empty", async () => {
    stubPlan();
    const run = await runCli(["plans", "get", "2"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("registration_url\t\n");
    expect(run.stdout).not.toContain("—");
  });

  it("still show a dash for it at a terminal", async () => {
    stubPlan();
    const run = await runCli(["plans", "get", "2"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/Sign-up link:\s+—/);
  });
});

describe("auth status", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  it("a command without any token exits 3, as the service's 401 would, and says how to log in", async () => {
    const run = await runCli(["plans", "list", "--json"], {
      env: { RESELLER_BASE_URL: mockBaseUrl },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("reseller login");
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: null,
        error_code: "unauthenticated",
        message: "Not logged in: no token from --token, RESELLER_TOKEN or the profile.",
        details: [],
        request_id: null,
      },
    });
  });

  it("exits 8, not 3, when the service cannot be reached to check the token", async () => {
    for (let i = 0; i < 4; i++) {
      api.pool
        .intercept({ path: "/api/v1/tokens/current", method: "GET" })
        .replyWithError(refused());
    }
    const run = await runCli(["auth", "status", "--json"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(8);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: null,
        error_code: "network",
        message: expect.stringContaining("Cannot reach the service"),
        // Which base URL it tried, and where that came from.
        details: expect.arrayContaining([
          { field: "base_url", message: "http://api.reseller.test (environment)" },
        ]),
        request_id: null,
      },
    });
  });

  it("piped, says where each setting came from, as --json does", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(
        401,
        { status: "error", error_code: "unauthenticated", message: "The token is invalid." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["auth", "status", "--base-url", mockBaseUrl], {
      env: { RESELLER_TOKEN: api.env.RESELLER_TOKEN, RESELLER_WORKSPACE: workspace },
      dispatcher: api.agent,
    });
    expect(run.stdout).toContain("base_url_source\tflag\n");
    expect(run.stdout).toContain("token\trsk_…0000\ntoken_source\tenv\n");
    expect(run.stdout).toContain("workspace_source\tenv\n");
    expect(run.stdout).toContain("problem\tThe token is invalid.\n");
    expect(run.stdout).not.toContain("rsk_test_token_0000");
  });

  it("exits 3 when the service refuses the token", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(
        401,
        { status: "error", error_code: "unauthenticated", message: "The token is invalid." },
        { headers: jsonHeaders },
      );
    const run = await runCli(["auth", "status"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("valid\tfalse\n");
  });

  it("with --json, prints the refusal as any failed request's error: status, request id, and the settings used with their sources", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens/current", method: "GET" })
      .reply(
        401,
        { status: "error", error_code: "unauthenticated", message: "The token is invalid." },
        { headers: { ...jsonHeaders, "x-request-id": "req_01refused" } },
      );
    const run = await runCli(["auth", "status", "--json"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: 401,
        error_code: "unauthenticated",
        message: "Token not confirmed: The token is invalid.",
        details: [
          { field: "profile", message: expect.stringMatching(/^default \(/) },
          { field: "base_url", message: expect.stringContaining("(") },
          { field: "token", message: expect.stringMatching(/^rsk_…\w+ \(/) },
          { field: "workspace", message: expect.stringContaining("(") },
        ],
        request_id: "req_01refused",
      },
    });
  });
});

describe("admin resellers create --quiet", () => {
  it("prints the new reseller's id, and on stderr its token, the one value never shown again", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-audit-")), "reseller.db");
    await (await openDatabase(file)).close();
    const run = await runCli([
      "admin",
      "resellers",
      "create",
      "--db",
      file,
      "--name",
      "Acme",
      "--quiet",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^rs_\w+\n$/);
    expect(run.stderr).toMatch(/rsk_\S+/);
  });
});

describe("HTTP_PROXY, with the built binary", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  async function listen(server: Server): Promise<number> {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return (server.address() as { port: number }).port;
  }

  it("sends every request through the proxy it names", async () => {
    const service = await listen(
      createServer((_req, res) => {
        res.writeHead(200, jsonHeaders);
        res.end(JSON.stringify({ status: "success", data: starterPlan, meta: planMeta }));
      }),
    );
    const tunnels: string[] = [];
    const proxyServer = createServer((_req, res) => res.writeHead(502).end());
    proxyServer.on("connect", (req, client, head) => {
      tunnels.push(String(req.url));
      const [host, port] = String(req.url).split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    const proxy = await listen(proxyServer);
    const run = await execa("node", [binPath, "plans", "get", "2", "--json"], {
      reject: false,
      env: {
        RESELLER_BASE_URL: `http://127.0.0.1:${service}`,
        RESELLER_TOKEN: "rsk_test_token_0000",
        RESELLER_CONFIG_DIR: mkdtempSync(join(tmpdir(), "reseller-audit-")),
        HTTP_PROXY: `http://127.0.0.1:${proxy}`,
        http_proxy: `http://127.0.0.1:${proxy}`,
        NO_PROXY: "",
        no_proxy: "",
      },
    });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(starterPlan);
    expect(tunnels).toEqual([`127.0.0.1:${service}`]);
  });
});
