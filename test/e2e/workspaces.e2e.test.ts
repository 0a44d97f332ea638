import { spawnSync } from "node:child_process";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { binPath, reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

/** util-linux `script` gives the binary a real terminal; where it is missing that test is skipped. */
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** Runs the built binary with stdout, stderr and stdin on a pseudo-terminal. */
async function atTerminal(args: string[], env: Record<string, string>) {
  const quoted = [binPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const run = await execa("script", ["-qec", `node ${quoted}`, "/dev/null"], {
    env: { ...env, NO_COLOR: "1", CI: "true", NODE_EXTRA_CA_CERTS: "" },
    stdin: "ignore",
    reject: false,
  });
  return { exitCode: run.exitCode, output: run.stdout.replace(/\r\n/g, "\n") };
}

function lines(text: string): string[] {
  return text.trimEnd().split("\n");
}

describe("workspaces and tokens through the binary against a real local service", () => {
  let service: ServedService;
  /** The first reseller, by environment (no stored login needed). */
  let env: Record<string, string>;
  let trialId: string;
  let activeId: string;

  beforeAll(async () => {
    service = await startServe();
    env = { ...serviceEnv(service), RESELLER_CONFIG_DIR: tempConfigDir() };
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("creates a trial workspace on the free plan with --json, invitation sent", async () => {
    const run = await reseller(
      [
        "workspaces",
        "create",
        "--name",
        "Acme Bakery",
        "--email",
        "owner@acme.test",
        "--plan",
        "1",
        "--json",
      ],
      { env },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe("");
    const ws = JSON.parse(run.stdout);
    expect(ws).toMatchObject({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      plan_id: "1",
      plan: { id: 1, slug: "free-trial" },
      status: "trial",
      invitation: { sent: true },
    });
    expect(ws.id).toMatch(/^ws_/);
    expect(ws.trial_ends_at).not.toBeNull();
    trialId = ws.id;
  });

  it("creates an active workspace piped: key<TAB>value lines, notes on stderr", async () => {
    const run = await reseller(
      [
        "workspaces",
        "create",
        "--name",
        "Beta Shop",
        "--email",
        "team@beta.test",
        "--plan",
        "2",
        "--no-invite",
      ],
      { env },
    );
    expect(run.exitCode).toBe(0);
    const out = lines(run.stdout);
    expect(out).toContain("status\tactive");
    expect(out).toContain("plan_id\t2");
    expect(out).toContain("invitation.sent_at\t");
    expect(out).toContain("invitation.sent\tfalse");
    expect(out).toContain("suspended_reason\t");
    expect(out.every((line) => line.split("\t").length === 2)).toBe(true);
    expect(run.stderr).toContain("No invitation sent (--no-invite).");
    activeId = (out.find((l) => l.startsWith("id\t")) ?? "").slice(3);
    expect(activeId).toMatch(/^ws_/);
  });

  it("refuses a create without --email as a usage error naming the flag (no terminal)", async () => {
    const run = await reseller(["workspaces", "create", "--name", "Nobody"], { env });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("Missing --email.");
  });

  it("refuses an unknown plan with exit 6 naming plan_id", async () => {
    const run = await reseller(
      ["workspaces", "create", "--name", "X", "--email", "x@x.test", "--plan", "999"],
      { env },
    );
    expect(run.exitCode).toBe(6);
    expect(run.stderr).toContain("plan_id:");
  });

  it("gets a workspace with its usage against the plan's limits", async () => {
    const json = await reseller(["workspaces", "get", trialId, "--json"], { env });
    expect(json.exitCode).toBe(0);
    const ws = JSON.parse(json.stdout);
    expect(ws.id).toBe(trialId);
    expect(ws.usage.contacts).toEqual({ total: 0, opted_in: 0, not_set: 0, opted_out: 0 });
    expect(ws.usage.limits.map((l: { key: string }) => l.key)).toEqual([
      "contacts",
      "templates",
      "messages_per_month",
    ]);
    const piped = await reseller(["workspaces", "get", trialId], { env });
    expect(lines(piped.stdout)).toContain("status\ttrial");
    expect(lines(piped.stdout)).toContain("usage.limits.contacts\t0/500");
  });

  it.skipIf(!hasScript)("shows usage readably at a terminal", async () => {
    const run = await atTerminal(["workspaces", "get", trialId], env);
    expect(run.exitCode).toBe(0);
    expect(run.output).toMatch(/Status:\s+trial/);
    expect(run.output).toContain("Usage against the Free Trial plan");
    expect(run.output).toMatch(/Contacts:\s+0 \/ 500\n/);
    expect(run.output).toMatch(/Messages per month:\s+0 \/ 1,000 this month/);
    expect(run.output).toMatch(/Contacts:\s+0 total · 0 opted_in · 0 not_set · 0 opted_out/);
  });

  it.skipIf(!hasScript)("lists workspaces as a table at a terminal", async () => {
    const run = await atTerminal(["workspaces", "list"], env);
    expect(run.exitCode).toBe(0);
    const out = lines(run.output);
    expect(out[0]).toMatch(/^ID\s+NAME\s+STATUS\s+PLAN/);
    expect(out.some((l) => l.startsWith(activeId) && /Beta Shop\s+active\s+Starter/.test(l))).toBe(
      true,
    );
  });

  it("lists workspaces newest first, filtered, paged, piped and as JSON", async () => {
    const all = await reseller(["workspaces", "list", "--json"], { env });
    const ids = JSON.parse(all.stdout).map((w: { id: string }) => w.id);
    expect(ids.slice(0, 2)).toEqual([activeId, trialId]);

    const trials = await reseller(["workspaces", "list", "--status", "trial", "-q"], { env });
    expect(trials.stdout).toBe(trialId);

    const piped = await reseller(["workspaces", "list"], { env });
    expect(lines(piped.stdout)[0]).toMatch(
      new RegExp(`^${activeId}\\tBeta Shop\\tactive\\t2\\tteam@beta\\.test\\t\\t`),
    );

    const firstPage = await reseller(["workspaces", "list", "--per-page", "1"], { env });
    expect(lines(firstPage.stdout)).toHaveLength(1);
    expect(firstPage.stdout.startsWith(`${activeId}\t`)).toBe(true);
    expect(firstPage.stderr).toMatch(/^Page 1 of \d+ \(\d+ workspaces\): --page 2 for the next/);

    const walked = await reseller(["workspaces", "list", "--all", "--per-page", "1", "--json"], {
      env,
    });
    expect(JSON.parse(walked.stdout).map((w: { id: string }) => w.id)).toEqual(ids);

    const csv = await reseller(["workspaces", "list", "--csv"], { env });
    expect(lines(csv.stdout)[0]).toBe(
      "id,name,status,plan_id,contact_email,trial_ends_at,created_at",
    );
  });

  it("updates only the given fields and refuses statuses the service sets", async () => {
    const run = await reseller(
      ["workspaces", "update", trialId, "--name", "Acme Bakery GmbH", "--json"],
      { env },
    );
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: trialId,
      name: "Acme Bakery GmbH",
      status: "trial",
      contact_email: "owner@acme.test",
    });
    const archived = await reseller(["workspaces", "update", trialId, "--status", "archived"], {
      env,
    });
    expect(archived.exitCode).toBe(2);
    const nothing = await reseller(["workspaces", "update", trialId], { env });
    expect(nothing.exitCode).toBe(2);
  });

  it("suspends only with --yes without a terminal, and activates again", async () => {
    const refused = await reseller(["workspaces", "suspend", activeId], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("Pass --yes");
    const still = await reseller(["workspaces", "get", activeId, "--json"], { env });
    expect(JSON.parse(still.stdout).status).toBe("active");

    const suspended = await reseller(["workspaces", "suspend", activeId, "--yes", "--json"], {
      env,
    });
    expect(suspended.exitCode).toBe(0);
    expect(JSON.parse(suspended.stdout).status).toBe("suspended");
    const listed = await reseller(["workspaces", "list", "--status", "suspended", "-q"], { env });
    expect(listed.stdout).toBe(activeId);

    const piped = await reseller(["workspaces", "activate", activeId], { env });
    expect(piped.exitCode).toBe(0);
    expect(lines(piped.stdout)).toContain("status\tactive");
  });

  it("creates a plans:read workspace token for the default workspace; it lists plans and nothing else", async () => {
    const use = await reseller(["workspaces", "use", trialId], { env });
    expect(use.exitCode).toBe(0);
    expect(use.stderr).toContain(`Default workspace of profile 'default' is now ${trialId}`);

    const created = await reseller(
      [
        "workspaces",
        "tokens",
        "create",
        "--name",
        "pricing page",
        "--scope",
        "plans:read",
        "--json",
      ],
      { env },
    );
    expect(created.exitCode).toBe(0);
    const token = JSON.parse(created.stdout);
    expect(token).toMatchObject({
      kind: "workspace",
      workspace_id: trialId,
      scopes: ["plans:read"],
    });
    expect(token.token).toMatch(/^wsk_/);

    const site = { RESELLER_CONFIG_DIR: tempConfigDir(), RESELLER_BASE_URL: service.url };
    const plans = await reseller(["plans", "list", "--json"], {
      env: { ...site, RESELLER_TOKEN: token.token },
    });
    expect(plans.exitCode).toBe(0);
    expect(Object.keys(JSON.parse(plans.stdout))).toContain("monthly");
    const workspaces = await reseller(["workspaces", "list"], {
      env: { ...site, RESELLER_TOKEN: token.token },
    });
    expect(workspaces.exitCode).toBe(3);
    expect(workspaces.stderr).toContain("workspaces:read");

    const listed = await reseller(["workspaces", "tokens", "list", "--json"], { env });
    const listedTokens = JSON.parse(listed.stdout);
    expect(listedTokens.map((t: { id: string }) => t.id)).toEqual([token.id]);
    expect(listed.stdout).not.toContain(token.token);

    const revoked = await reseller(["workspaces", "tokens", "revoke", token.id, "--yes"], { env });
    expect(revoked.exitCode).toBe(0);
    const after = await reseller(["plans", "list"], {
      env: { ...site, RESELLER_TOKEN: token.token },
    });
    expect(after.exitCode).toBe(3);
  });

  /** A contacts:read workspace token of the active workspace: its secret. */
  async function contactsReadToken(name: string): Promise<string> {
    const args = ["workspaces", "tokens", "create", "-w", activeId, "--name", name];
    const created = await reseller([...args, "--scope", "contacts:read", "--json"], { env });
    expect(created.exitCode, created.stderr).toBe(0);
    return JSON.parse(created.stdout).token as string;
  }

  it("works inside a workspace token's own workspace when nothing names one", async () => {
    // The client's own machine: no profile, no default workspace.
    const client = {
      ...env,
      RESELLER_CONFIG_DIR: tempConfigDir(),
      RESELLER_TOKEN: await contactsReadToken("client"),
    };
    const run = await reseller(["contacts", "list", "--json"], { env: client });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it("works inside a workspace token's own workspace whatever default the profile kept from another token", async () => {
    const wsk = await contactsReadToken("desk");
    // A machine whose profile was set up with the reseller's token, default workspace the trial.
    const machine = { RESELLER_CONFIG_DIR: tempConfigDir(), RESELLER_BASE_URL: service.url };
    const used = await reseller(["workspaces", "use", trialId], {
      env: { ...machine, RESELLER_TOKEN: env.RESELLER_TOKEN as string },
    });
    expect(used.exitCode, used.stderr).toBe(0);

    const byEnv = await reseller(["contacts", "list", "--json"], {
      env: { ...machine, RESELLER_TOKEN: wsk },
    });
    expect(byEnv.exitCode, byEnv.stderr).toBe(0);
    const status = await reseller(["auth", "status", "--json"], {
      env: { ...machine, RESELLER_TOKEN: wsk },
    });
    expect(JSON.parse(status.stdout)).toMatchObject({
      workspace: activeId,
      workspace_source: "token",
    });

    const login = await reseller(["login", "--token-stdin"], { env: machine, input: `${wsk}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toContain(
      `Its default workspace is now the token's own, ${activeId} (was ${trialId}).`,
    );
    const byProfile = await reseller(["contacts", "list", "--json"], { env: machine });
    expect(byProfile.exitCode, byProfile.stderr).toBe(0);
    expect(JSON.parse(byProfile.stdout)).toEqual([]);
  });

  it("creates, uses and revokes a reseller token, its secret captured with --json", async () => {
    const created = await reseller(
      ["tokens", "create", "--name", "read only", "--scope", "workspaces:read", "--json"],
      { env },
    );
    expect(created.exitCode).toBe(0);
    const secret = JSON.parse(created.stdout).token;
    expect(secret).toMatch(/^rsk_/);
    const readOnly = { ...env, RESELLER_TOKEN: secret };
    expect((await reseller(["workspaces", "get", trialId, "-q"], { env: readOnly })).exitCode).toBe(
      0,
    );
    const write = await reseller(
      ["workspaces", "create", "--name", "No", "--email", "no@no.test"],
      { env: readOnly },
    );
    expect(write.exitCode).toBe(3);

    const listed = await reseller(["tokens", "list", "--json"], { env });
    const mine = JSON.parse(listed.stdout).find((t: { name: string }) => t.name === "read only");
    expect(mine).toMatchObject({ kind: "reseller", scopes: ["workspaces:read"] });
    const revoked = await reseller(["tokens", "revoke", mine.id, "--yes", "--json"], { env });
    expect(JSON.parse(revoked.stdout).revoked_at).not.toBeNull();
    expect((await reseller(["workspaces", "list"], { env: readOnly })).exitCode).toBe(3);
  });

  describe("another reseller", () => {
    let other: Record<string, string>;

    beforeAll(async () => {
      const created = await reseller([
        "admin",
        "resellers",
        "create",
        "--db",
        service.dbFile,
        "--name",
        "Other Agency",
        "--json",
      ]);
      expect(created.exitCode).toBe(0);
      other = {
        RESELLER_CONFIG_DIR: tempConfigDir(),
        RESELLER_BASE_URL: service.url,
        RESELLER_TOKEN: JSON.parse(created.stdout).token,
      };
    });

    it("gets 404 (exit 4) for the first reseller's workspace on every command", async () => {
      const attempts = [
        ["workspaces", "get", trialId],
        ["workspaces", "update", trialId, "--name", "Taken over"],
        ["workspaces", "suspend", trialId, "--yes"],
        ["workspaces", "activate", trialId],
        ["workspaces", "use", trialId],
        ["workspaces", "tokens", "list", "-w", trialId],
        ["workspaces", "tokens", "create", "-w", trialId, "--name", "x", "--scope", "plans:read"],
      ];
      for (const args of attempts) {
        const run = await reseller([...args, "--json"], { env: other });
        expect({ args, exitCode: run.exitCode }).toEqual({ args, exitCode: 4 });
        expect(JSON.parse(run.stdout).error.error_code).toBe("not_found");
      }
    });

    it("sees none of the first reseller's workspaces, which stay unchanged", async () => {
      const list = await reseller(["workspaces", "list", "--json"], { env: other });
      expect(JSON.parse(list.stdout)).toEqual([]);
      const mine = await reseller(["workspaces", "get", trialId, "--json"], { env });
      expect(JSON.parse(mine.stdout)).toMatchObject({ name: "Acme Bakery GmbH", status: "trial" });
    });
  });
});
