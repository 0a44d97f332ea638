import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { freePort } from "../helpers/free-port.js";
import { binPath, reseller, serviceEnv, startServe } from "../helpers/serve.js";

describe("reseller serve exec", () => {
  it("runs a script against a fresh service, passes its exit code through and removes the database", async () => {
    const tmp = tempConfigDir();
    const script = `
      const res = await fetch(process.env.RESELLER_BASE_URL + "/api/v1/tokens/current", {
        headers: { authorization: "Bearer " + process.env.RESELLER_TOKEN },
      });
      console.log(res.status, (await res.json()).data.kind);
      process.exit(3);
    `;
    const run = await reseller(
      ["serve", "exec", "--", "node", "--input-type=module", "-e", script],
      {
        env: { TMPDIR: tmp },
      },
    );
    expect(run.stdout).toBe("200 reseller");
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /reseller service on http:\/\/127\.0\.0\.1:\d+ \(temporary database\)/,
    );
    expect(readdirSync(tmp)).toEqual([]);
    // With --json the command's own output is all there is on stdout, whatever its exit.
    const json = await reseller(["--json", "serve", "exec", "--", "sh", "-c", 'echo "{}"; exit 3']);
    expect(json.exitCode).toBe(3);
    expect(json.stdout).toBe("{}");
  });

  it("lets the command use the CLI with the service's credentials, the service's log kept off stdout", async () => {
    const run = await reseller([
      "serve",
      "exec",
      "--",
      "node",
      binPath,
      "workspaces",
      "create",
      "--name",
      "Acme",
      "--email",
      "owner@acme.test",
      "--json",
    ]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      name: "Acme",
      contact_email: "owner@acme.test",
    });
  });

  it("does not take the SMTP server from RESELLER_SMTP_URL: invitations of a test run stay in its outbox", async () => {
    const run = await reseller(
      [
        "serve",
        "exec",
        "--",
        "node",
        binPath,
        "workspaces",
        "create",
        "--name",
        "Acme",
        "--email",
        "owner@acme.test",
        "--json",
      ],
      // A closed port: had the service used it, the invitation would not count as sent.
      { env: { RESELLER_SMTP_URL: "smtp://127.0.0.1:9" } },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).invitation).toMatchObject({ sent: true });
  });

  it("gives the command a profile store of its own: the user's default workspace is neither read nor changed", async () => {
    const userConfig = tempConfigDir();
    const stored = JSON.stringify({
      active_profile: "default",
      profiles: { default: { base_url: "http://127.0.0.1:9", workspace: "ws_01elsewhere" } },
    });
    writeFileSync(join(userConfig, "config.json"), stored);
    const run = await reseller(
      [
        "serve",
        "exec",
        "--",
        "sh",
        "-c",
        'reseller workspaces use "$(reseller workspaces create --name A --email a@a.test -q)" >/dev/null && reseller contacts list --json',
      ],
      { env: { RESELLER_CONFIG_DIR: userConfig } },
    );
    expect(run.stderr).not.toContain("ws_01elsewhere");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(readFileSync(join(userConfig, "config.json"), "utf8")).toBe(stored);
  });

  it("applies serve's own options, such as --plans, given before or after exec", async () => {
    const plans = join(tempConfigDir(), "plans.json");
    writeFileSync(
      plans,
      JSON.stringify({
        currency: { code: "EUR", name: "Euro", symbol: "€" },
        plans: [
          { name: "Solo", slug: "solo", price: 9.5, billing_period: "monthly", features: [] },
        ],
      }),
    );
    const list = ["--", "node", binPath, "plans", "list", "--json"];
    for (const argv of [
      ["serve", "--plans", plans, "exec", ...list],
      ["serve", "exec", "--plans", plans, ...list],
    ]) {
      const run = await reseller(argv);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).monthly.map((p: { slug: string }) => p.slug)).toContain("solo");
    }
  });

  it("puts `reseller` on the command's PATH", async () => {
    const run = await reseller(["serve", "exec", "--", "sh", "-c", "reseller plans list --json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(Object.keys(JSON.parse(run.stdout))).toContain("monthly");
  });

  it("listens where --host and --port say, and uses and keeps the database --db names", async () => {
    const dir = tempConfigDir();
    const db = join(dir, "kept.db");
    const port = await freePort();
    const run = await reseller([
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--db",
      db,
      "exec",
      "--",
      "sh",
      "-c",
      'echo "$RESELLER_BASE_URL"',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`http://127.0.0.1:${port}`);
    expect(run.stderr).toContain(`(database ${db})`);
    expect(readdirSync(dir)).toContain("kept.db");
  });

  it("exits 127 when the command cannot be started", async () => {
    const run = await reseller(["serve", "exec", "--", "no-such-command-reseller-test"]);
    expect(run.exitCode).toBe(127);
    expect(run.stderr).toContain("Cannot run no-such-command-reseller-test: command not found");
  });

  it("leaves `reseller serve` with its own flags running the service as before", async () => {
    const service = await startServe();
    const plans = await reseller(["plans", "list", "--json"], {
      env: serviceEnv(service),
    });
    expect(plans.exitCode).toBe(0);
    expect(Object.keys(JSON.parse(plans.stdout))).toContain("monthly");
    expect((await service.stop()).exitCode).toBe(0);
  });
});
