import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { reseller, type ServedService, startServe } from "../helpers/serve.js";

describe("the reseller binary against a real local service", () => {
  let service: ServedService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startServe();
    env = { RESELLER_CONFIG_DIR: tempConfigDir() };
  });
  afterAll(async () => {
    await service.stop();
  });

  it("logs in with a token from stdin, then lists plans as JSON", async () => {
    const login = await reseller(["login", "--base-url", service.url, "--token-stdin"], {
      env,
      input: service.token,
    });
    expect(login.exitCode).toBe(0);
    expect(login.stderr).toContain("saved to profile 'default'");

    const list = await reseller(["plans", "list", "--json"], { env });
    expect(list.exitCode).toBe(0);
    const data = JSON.parse(list.stdout);
    expect(Object.keys(data)).toEqual(["monthly", "quarterly", "yearly"]);
    expect(data.monthly[0].registration_url).toBe(`${service.url}/register?plan=free-trial`);
  });

  it("keeps every profile when logins run in parallel under one config folder (parallel CI jobs)", async () => {
    const shared = { RESELLER_CONFIG_DIR: tempConfigDir() };
    // The lock of an earlier job killed mid-login is still there: taken over once, by one.
    const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    writeFileSync(
      join(shared.RESELLER_CONFIG_DIR, "config.json.lock"),
      `${ended.stdout}@${hostname()}`,
    );
    const names = Array.from({ length: 8 }, (_, i) => `job${i}`);
    const runs = await Promise.all(
      names.map((name) =>
        reseller(["login", "--base-url", service.url, "--token-stdin", "--profile", name], {
          env: shared,
          input: service.token,
        }),
      ),
    );
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
    const listed = await reseller(["profiles", "list", "--json"], { env: shared });
    expect(
      JSON.parse(listed.stdout)
        .map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(names);
  });

  it("prints tab-separated plans when piped and one plan by id", async () => {
    const list = await reseller(["plans", "list"], { env });
    expect(list.stdout.split("\n")[0]).toMatch(/^1\tFree Trial\tfree-trial\tmonthly\t0\ttrue\t/);
    const one = await reseller(["plans", "get", "2", "--json"], { env });
    expect(JSON.parse(one.stdout).slug).toBe("starter-monthly");
  });

  it("refuses to serve a --plans file that is not a catalogue: exit 2, the file and each bad field named", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-bad-plans-"));
    const file = join(dir, "plans.json");
    writeFileSync(file, JSON.stringify({ plans: [{ name: "Pro" }] }));
    const run = await reseller([
      "serve",
      "--plans",
      file,
      "--port",
      "0",
      "--db",
      join(dir, "r.db"),
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`plans file ${file} is not a valid catalogue`);
    expect(run.stderr).toMatch(/plans\.0\.\w+/);
    expect(run.stderr).not.toContain("Unexpected error");
    // Checked before the database is opened: nothing is created or migrated for a bad file.
    expect(existsSync(join(dir, "r.db"))).toBe(false);
    const exec = await reseller(["serve", "--plans", file, "exec", "--", "true"]);
    expect(exec.exitCode).toBe(2);
    expect(exec.stderr).toContain(`plans file ${file} is not a valid catalogue`);
  });

  it("serves the README's example catalogue (examples/plans.json) as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-example-plans-"));
    const run = await reseller(
      [
        "serve",
        "--plans",
        "examples/plans.json",
        "--db",
        join(dir, "r.db"),
        "exec",
        "--",
        "reseller",
        "plans",
        "list",
        "--json",
      ],
      { env: { RESELLER_CONFIG_DIR: tempConfigDir() } },
    );
    expect(run.stderr).not.toContain("not a valid catalogue");
    expect(run.exitCode).toBe(0);
    const plans = JSON.parse(run.stdout);
    expect(plans.monthly.map((p: { slug: string }) => p.slug)).toEqual(["trial", "solo"]);
    expect(plans.monthly[0]).toMatchObject({ is_free: true, trial_days: 14 });
  });

  it("exits 4 for an unknown plan and 2 for a bad flag", async () => {
    expect((await reseller(["plans", "get", "404"], { env })).exitCode).toBe(4);
    expect(
      (await reseller(["plans", "list", "--billing-period", "weekly"], { env })).exitCode,
    ).toBe(2);
  });

  it("creates a second reseller from the database whose token works at once and is shown once", async () => {
    const created = await reseller([
      "admin",
      "resellers",
      "create",
      "--db",
      service.dbFile,
      "--name",
      "Acme Agency",
      "--json",
    ]);
    expect(created.exitCode).toBe(0);
    const { token, reseller_id } = JSON.parse(created.stdout);
    expect(token).toMatch(/^rsk_/);
    expect(reseller_id).toMatch(/^rs_/);
    const list = await reseller(["plans", "list", "--json", "--base-url", service.url], {
      env: { RESELLER_TOKEN: token, RESELLER_CONFIG_DIR: tempConfigDir() },
    });
    expect(list.exitCode).toBe(0);
  });

  it("reports a wrong token with exit 3 and the service's error code", async () => {
    const run = await reseller(
      ["plans", "list", "--base-url", service.url, "--token", "rsk_wrong"],
      { env: { RESELLER_CONFIG_DIR: tempConfigDir() } },
    );
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain("(unauthenticated, HTTP 401)");
  });

  it("serves the OpenAPI document and the API reference page", async () => {
    const doc = (await fetch(`${service.url}/api/v1/openapi.json`).then((r) => r.json())) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/plans/{id}");
    const page = await fetch(`${service.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
  });
});

describe("reseller serve", () => {
  it("prints a random first token once when no bootstrap token is set, and stops cleanly on SIGTERM", async () => {
    const { execa } = await import("execa");
    const { binPath } = await import("../helpers/serve.js");
    const { mkdtempSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const db = join(mkdtempSync(join(tmpdir(), "reseller-serve-")), "x.db");
    const child = execa(
      "node",
      [binPath, "serve", "--port", "0", "--db", db, "--log-level", "info"],
      { reject: false, buffer: false, env: { RESELLER_BOOTSTRAP_TOKEN: "" } },
    );
    let stdout = "";
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes("Log in with")) resolve();
      });
    });
    expect(stderr).toMatch(/shown only this once:\s+rsk_[A-Za-z0-9_-]{32}/);
    // The login it suggests asks for the token at a terminal (--token-stdin would wait silently).
    expect(stderr).toMatch(
      /Log in with: reseller login --base-url http:\/\/\S+ +\(at a terminal it asks for the token; a script adds --token-stdin\)/,
    );
    child.kill("SIGTERM");
    const result = await child;
    expect({ exitCode: result.exitCode, signal: result.signal }).toEqual({
      exitCode: 0,
      signal: undefined,
    });
    expect(stderr).toContain("Stopped.");
    // The JSON log says so too, for an operator who collects only stdout.
    const said = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said.some((msg) => msg.startsWith("stopping:"))).toBe(true);
    expect(said).toContain("stopped");
  });

  it("stops at once on a second SIGTERM while a request in flight holds the first, exit 130", async () => {
    const served = await startServe();
    const { request } = await import("node:http");
    const created = await fetch(`${served.url}/api/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${served.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Held", contact_email: "held@example.com" }),
    });
    const workspace = ((await created.json()) as { data: { id: string } }).data.id;
    // An upload whose body never ends: the first SIGTERM waits for it.
    // In flight once the service has read its head, which its 100 Continue says: before that, the
    // connection would count as idle and be closed.
    const upload = request(`${served.url}/api/v1/workspaces/${workspace}/contacts/import`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${served.token}`,
        "content-type": "text/csv",
        expect: "100-continue",
      },
    });
    upload.on("error", () => {});
    upload.flushHeaders();
    await once(upload, "continue");
    upload.write("phone\n+4915112345671\n");
    served.process.kill("SIGTERM");
    await expect.poll(() => served.stderr(), { timeout: 10_000 }).toContain("finishing requests");
    served.process.kill("SIGTERM");
    const result = await served.process;
    upload.destroy();
    expect(result.exitCode).toBe(130);
    expect(served.stderr()).toContain(
      "SIGTERM received again: stopped at once, without waiting for requests in flight.",
    );
    expect(served.stderr()).not.toContain("Stopped.");
  });

  it("keeps the one-time sign-in link out of output that is no terminal, unless asked for", async () => {
    const served = await startServe();
    const { stderr } = await served.stop();
    expect(stderr).toContain("/dashboard   (sign in with a reseller token;");
    expect(stderr).toContain("--sign-in-link");
    expect(stderr).not.toContain("sign-in?code=");
  });

  it("listening on every address, builds sign-up links on the machine's name and says to set --public-url", async () => {
    const served = await startServe({ args: ["--host", "0.0.0.0"] });
    try {
      const port = new URL(served.url).port;
      const plans = await fetch(`http://127.0.0.1:${port}/api/v1/plans`, {
        headers: { authorization: `Bearer ${served.token}` },
      }).then((r) => r.json() as Promise<{ data: Record<string, { registration_url: string }[]> }>);
      const link = Object.values(plans.data).flat()[0]?.registration_url;
      expect(link).toMatch(new RegExp(`^http://${hostname()}:${port}/register\\?plan=`));
    } finally {
      const { stderr } = await served.stop();
      expect(stderr).toContain("set --public-url to the address your clients reach");
    }
  });

  it("prints the dashboard's sign-in link on --public-url, where its Secure cookie works", async () => {
    const served = await startServe({
      args: ["--public-url", "https://wa.example.test/", "--sign-in-link"],
      // A variable holding only a line break gives no token: the random one is shown.
      env: { RESELLER_BOOTSTRAP_TOKEN: "\r" },
    });
    const { stderr } = await served.stop();
    expect(stderr).toContain("Dashboard: https://wa.example.test/dashboard ");
    expect(stderr).toMatch(/shown only this once:\s+rsk_/);
    expect(stderr).toMatch(
      /one-time sign-in link \(10 minutes\): https:\/\/wa\.example\.test\/dashboard\/sign-in\?code=/,
    );
  });

  it("says where invitation emails go when no SMTP server is given", async () => {
    const plain = await startServe({});
    expect((await plain.stop()).stderr).toMatch(
      /No --smtp-url: invitation emails stay in the outbox \(http:\/\/127\.0\.0\.1:\d+\/dashboard, Outbox\)/,
    );
    const mailing = await startServe({ env: { RESELLER_SMTP_URL: "smtp://127.0.0.1:9" } });
    expect((await mailing.stop()).stderr).not.toContain("No --smtp-url");
  });

  it("says a --db it cannot open is a usage error (exit 2) naming why, with no stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reseller-bad-db-"));
    const notDb = join(dir, "contacts.csv");
    writeFileSync(notDb, "phone,first_name\n+4915112345678,Ada\n");
    const cases: [string, string][] = [
      [join(dir, "missing", "r.db"), "its folder does not exist"],
      [notDb, "the file is not a SQLite database"],
      [dir, "it cannot be opened as a file"],
    ];
    for (const [db, why] of cases) {
      const run = await reseller(["serve", "--port", "0", "--db", db]);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain(`Cannot open the SQLite database ${db}: ${why}`);
      expect(run.stderr).not.toContain("Unexpected error");
    }
    // An admin command wants the service's file: it never suggests a new one.
    const migrate = await reseller(["admin", "migrate", "--db", notDb]);
    expect(migrate.exitCode, migrate.stderr).toBe(2);
    expect(migrate.stderr).toContain("the file is not a SQLite database");
    expect(migrate.stderr).not.toContain("new file");
  });

  it("says the port is in use as a usage error (exit 2), and creates the account on the start that can show its token", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = String((taken.address() as AddressInfo).port);
    const db = join(mkdtempSync(join(tmpdir(), "reseller-port-")), "r.db");
    try {
      const run = await reseller(["serve", "--port", port, "--db", db]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain(`Cannot listen on 127.0.0.1:${port}: the port is in use.`);
      expect(run.stderr).not.toContain("rsk_");
    } finally {
      taken.close();
    }
    // The failed start showed no token, so it kept no account: the next start creates it.
    const token = "rsk_second_start_token_000001";
    const served = await startServe({ dbFile: db, token });
    try {
      expect(served.stderr()).toContain("Created the first reseller account");
      // A short token works, but the note says what it risks.
      expect(served.stderr()).toContain(
        "RESELLER_BOOTSTRAP_TOKEN is 29 characters: fine on a laptop, but a service others reach needs a long random one",
      );
      const plans = await fetch(`${served.url}/api/v1/plans`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(plans.status).toBe(200);
    } finally {
      await served.stop();
    }
  });

  it("refuses a malformed --rate-limit as a usage error", async () => {
    const run = await reseller(["serve", "--rate-limit", "lots"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("--rate-limit expects N/WINDOW");
  });
});
