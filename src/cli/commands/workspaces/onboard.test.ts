import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { planList } from "../../../../test/fixtures/plans.js";
import { envelope, pricingToken, trialWorkspace } from "../../../../test/fixtures/workspaces.js";
import { runCli, scriptedPrompter, tempConfigDir } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi, replyAfterCtrlC } from "../../../../test/helpers/mock-api.js";

const createdToken = { ...pricingToken, token: "wsk_secret_shown_once" };
const starterWorkspace = { ...trialWorkspace, plan_id: "2", status: "active", trial_ends_at: null };
const contactImport = (status: string, processed: number) => ({
  id: "imp_01onboard",
  import_id: "imp_01onboard",
  status,
  duplicate_handling: "update",
  default_country: null,
  total_rows: 2,
  processed_rows: processed,
  created: processed,
  updated: 0,
  skipped: 0,
  error_count: 0,
  opt_outs_kept: 0,
  errors: [],
  ignored_columns: [],
  mapping: { phone: "phone", first_name: "first_name" },
  delimiter: ",",
  encoding: "utf-8",
  failure_reason: null,
  created_at: "2026-11-22T09:30:00Z",
  started_at: null,
  finished_at: status === "completed" ? "2026-11-22T09:30:02Z" : null,
});

function csvFile(content = "phone,first_name\n+4915112345678,Anna\n+4915112345679,Ben\n"): string {
  const file = join(tempConfigDir(), "customers.csv");
  writeFileSync(file, content);
  return file;
}

/** A file the service refuses as it is: no column is named phone. */
// Column names that suggest no field (no "phone", "mobile" or "telefon"): each is asked for.
const withoutPhoneColumn = "Name,Handset\nAnna,+4915112345678\nBen,+4915112345679\n";

describe("reseller workspaces onboard", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubCatalogue() {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET", query: { include_private: "true" } })
      .reply(200, planList, { headers: jsonHeaders });
  }

  /** Stubs the workspace's creation, answering only the exact body expected. */
  function stubCreate(body: Record<string, unknown>, answer: unknown = starterWorkspace) {
    api.pool
      .intercept({ path: "/api/v1/workspaces", method: "POST", body: JSON.stringify(body) })
      .reply(201, envelope(answer), { headers: jsonHeaders });
  }

  /** Onboarding Acme on plan 2, from flags alone. */
  const acme = ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test", "--plan", "2"];
  /** The same, with a pricing-page token. */
  const acmeWithToken = [...acme, "--pricing-token"];

  function stubToken(status = 201, answer: unknown = envelope(createdToken), replayed = false) {
    api.pool
      .intercept({
        path: "/api/v1/workspaces/ws_01trial/tokens",
        method: "POST",
        body: JSON.stringify({ name: "pricing page", scopes: ["plans:read"] }),
      })
      .reply(status, answer as object, {
        headers: replayed ? { ...jsonHeaders, "idempotent-replayed": "true" } : jsonHeaders,
      });
  }

  it("walks through name, email, a plan shown with price and period, invitation and token at a terminal", async () => {
    stubCatalogue();
    stubCreate({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      send_invitation: true,
      plan_id: "2",
    });
    stubToken();
    const prompter = scriptedPrompter({
      "Client business name": "Acme Bakery",
      "Contact email": "owner@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": false,
      "pricing page": true,
      "Create workspace": true,
    });
    let choices: { name: string; value: string; description?: string }[] = [];
    const select = prompter.select;
    prompter.select = async (q) => {
      choices = q.choices;
      return select(q);
    };
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toEqual([
      "Client business name",
      "Contact email (receives the invitation)",
      "Plan",
      "Send the invitation to owner@acme.test?",
      "Import contacts from a CSV file now?",
      "Create a plans:read token for the client's pricing page?",
      "Create workspace 'Acme Bakery' for owner@acme.test on Starter · $29.50 / month, invitation sent, with a pricing-page token?",
    ]);
    expect(choices).toEqual([
      {
        name: "Free Trial · Free · 14-day trial",
        value: "1",
        description: "Monthly · Try every feature for 14 days.",
      },
      { name: "Starter · $29.50 / month", value: "2", description: "Monthly" },
      { name: "Forever · $499 once", value: "3", description: "Lifetime" },
    ]);
    expect(run.stdout).toMatch(/Id:\s+ws_01trial/);
    expect(run.stdout).toContain("wsk_secret_shown_once");
    expect(run.stderr).toContain(
      "Onboarded Acme Bakery (ws_01trial): active, Starter · $29.50 / month.",
    );
    expect(run.stderr).toContain("Invitation sent to owner@acme.test.");
    expect(run.stderr).toContain("shown only this once");
    expect(run.stderr).toMatch(/Next:\n {2}reseller workspaces use ws_01trial\s+# work inside it/);
    // Each next step runs as written in an empty folder: no file to write first, no elisions.
    expect(run.stderr).toMatch(
      / {2}reseller templates create -w ws_01trial\s+# submit a message template/,
    );
    expect(run.stderr).toMatch(/ {2}reseller campaigns create -w ws_01trial\s+# send a broadcast/);
    expect(run.stderr).not.toMatch(/\.json|…/);
  });

  it("asks again until the email is valid", async () => {
    stubCatalogue();
    stubCreate(
      { name: "Acme", contact_email: "o@acme.test", send_invitation: false, plan_id: "1" },
      { ...starterWorkspace, invitation: { sent: false, sent_at: null } },
    );
    let validate: ((v: string) => true | string) | undefined;
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "1",
      "Send the invitation": false,
      "Import contacts": false,
      "pricing page": false,
      "Create workspace": true,
    });
    const input = prompter.input;
    prompter.input = async (q) => {
      if (q.message.startsWith("Contact email")) validate = q.validate;
      return input(q);
    };
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(validate?.("not-an-email")).toBe("Enter an email address such as owner@example.com.");
    expect(validate?.("o@acme.test")).toBe(true);
    // The service's own rule: an internationalised address is taken, a one-letter domain end is not.
    expect(validate?.("anna@münchen.de")).toBe(true);
    expect(validate?.("a@b.c")).toBe("Enter an email address such as owner@example.com.");
    expect(run.stderr).toContain("No invitation sent.");
  });

  it("runs from flags alone with --yes at a terminal, taking a plan's slug, asking nothing", async () => {
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    const run = await runCli(
      [
        "workspaces",
        "onboard",
        "--name",
        "Acme",
        "--email",
        "o@acme.test",
        "--plan",
        "starter",
        "--yes",
      ],
      { tty: true, env: api.env, dispatcher: api.agent, prompter: scriptedPrompter({}) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("pricing-page token");
  });

  it("asks nothing with --yes at a terminal: a value it cannot default is a usage error naming its flag", async () => {
    for (const [argv, flag] of [
      [["--email", "o@acme.test", "--plan", "2"], "--name"],
      [["--name", "Iota", "--plan", "2"], "--email"],
      [["--name", "Iota", "--email", "o@acme.test"], "--plan"],
    ] as const) {
      const prompter = scriptedPrompter({});
      const run = await runCli(["workspaces", "onboard", ...argv, "--yes"], {
        tty: true,
        env: api.env,
        dispatcher: api.agent,
        prompter,
      });
      expect(prompter.asked).toEqual([]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`Error: Missing ${flag}.`);
    }
  });

  it("refuses a plan id the catalogue does not have before asking about the rest", async () => {
    stubCatalogue();
    const prompter = scriptedPrompter({});
    const argv = ["--name", "Delta", "--email", "d@x.test", "--plan", "99"];
    const run = await runCli(["workspaces", "onboard", ...argv], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter,
    });
    // Exit 6, as the service refuses an unknown plan_id of `workspaces create`: a value refused.
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain("No plan has the id '99'.");
    expect(prompter.asked).toEqual([]);
  });

  it("asks again for a business name longer than the service takes", async () => {
    let validate: ((v: string) => true | string) | undefined;
    const prompter = scriptedPrompter({});
    prompter.input = async (q) => {
      validate = q.validate;
      throw new Error("stop after the first question");
    };
    await runCli(["workspaces", "onboard"], { tty: true, env: api.env, prompter });
    expect(validate?.("x".repeat(201))).toBe("name must be at most 200 characters");
    expect(validate?.("x".repeat(200))).toBe(true);
    expect(validate?.("  ")).toBe("name must not be empty");
  });

  it("is a usage error, before any request, when --name is longer than the service takes", async () => {
    const run = await runCli(
      ["workspaces", "onboard", "--name", "x".repeat(201), "--email", "o@acme.test", "--plan", "2"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Error: Invalid --name: name must be at most 200 characters");
  });

  /** Acme onboarded from flags, without an invitation, with a pricing-page token. */
  const onboardAcmeWithoutInvite = (extra: string[]) => {
    stubCatalogue();
    stubCreate({
      name: "Acme",
      contact_email: "o@acme.test",
      send_invitation: false,
      plan_id: "2",
    });
    stubToken();
    return runCli([...acmeWithToken, "--no-invite", ...extra], {
      env: api.env,
      dispatcher: api.agent,
    });
  };

  it("runs without a terminal from flags, --no-invite and --pricing-token included, printing both records as JSON", async () => {
    const run = await onboardAcmeWithoutInvite(["--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      workspace: starterWorkspace,
      contact_import: null,
      pricing_token: createdToken,
    });
  });

  it("shows a script the next steps with the flags they need, since nothing will ask for them", async () => {
    const run = await onboardAcmeWithoutInvite([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`reseller channels add -w ${starterWorkspace.id} --phone +E164`);
    expect(run.stderr).toContain("--name NAME --category CATEGORY --language LANG --body TEXT");
    expect(run.stderr).not.toContain("it asks");
  });

  it("prints only the new workspace's id with --quiet, and the pricing-page token's secret on stderr", async () => {
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubToken();
    const run = await runCli([...acmeWithToken, "-q"], { env: api.env, dispatcher: api.agent });
    expect(run.stdout).toBe("ws_01trial\n");
    expect(run.stderr).toBe("Pricing-page token (shown only this once): wsk_secret_shown_once\n");
  });

  it("writes the pricing-page token's fields under pricing_token. when piped, so `id` stays the workspace's", async () => {
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubToken();
    const run = await runCli(acmeWithToken, { env: api.env, dispatcher: api.agent });
    expect(run.code, run.stderr).toBe(0);
    const keys = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.split("\t")[0]);
    expect(keys.filter((key) => key === "id")).toHaveLength(1);
    expect(run.stdout).toContain("id\tws_01trial\n");
    expect(keys).toContain("pricing_token.id");
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("does not call a pricing-page token replayed under its idempotency key shown only once", async () => {
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubToken(201, envelope(createdToken), true);
    const run = await runCli([...acmeWithToken, "-q"], { env: api.env, dispatcher: api.agent });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Pricing-page token (as the earlier run was shown it):");
    expect(run.stderr).not.toContain("shown only this once");
  });

  it("is a usage error naming the missing flag without a terminal, before any request", async () => {
    for (const [argv, flag] of [
      [["--email", "o@acme.test", "--plan", "2"], "--name"],
      [["--name", "Acme", "--plan", "2"], "--email"],
      [["--name", "Acme", "--email", "o@acme.test"], "--plan"],
    ] as const) {
      const run = await runCli(["workspaces", "onboard", ...argv], {
        env: api.env,
        dispatcher: api.agent,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`Error: Missing ${flag}.`);
    }
    // All of them at once: a script learns from one run everything it must add.
    const none = await runCli(["workspaces", "onboard"], { env: api.env, dispatcher: api.agent });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Error: Missing --name, --email, --plan.");
    const bad = await runCli(
      ["workspaces", "onboard", "--name", "A", "--email", "nope", "--plan", "2"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--email is not an email address: 'nope'");
  });

  it("creates nothing when the last question is answered no", async () => {
    stubCatalogue();
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": false,
      "pricing page": false,
      "Create workspace": false,
    });
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Cancelled: nothing was created.");
  });

  /** Onboarding whose pricing-page token the service refuses (403), with `extra` flags. */
  async function tokenRefusedRun(extra: string[] = []) {
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubToken(403, {
      status: "error",
      error_code: "insufficient_scope",
      message: "This token lacks the scope workspaces:write.",
    });
    return runCli([...acmeWithToken, ...extra], { env: api.env, dispatcher: api.agent });
  }

  it("still reports the workspace when the token fails, with the exit code of the failure and a retry", async () => {
    const run = await tokenRefusedRun();
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^id\tws_01trial$/m);
    expect(run.stderr).toContain("Could not create the pricing-page token: This token lacks");
    expect(run.stderr).toContain(
      'Retry with: reseller workspaces tokens create -w ws_01trial --name "pricing page" --scope plans:read',
    );
  });

  it("prints its record with --json when a later step fails, so nothing created is lost", async () => {
    const run = await tokenRefusedRun(["--json"]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({
      workspace: { id: "ws_01trial" },
      pricing_token: null,
    });
  });

  /** The upload (with `query` among its options) and, unless it was stubbed already, its polls. */
  function stubImport(query = "duplicate_handling=update", polls = true) {
    api.pool
      .intercept({
        // The file is streamed as text/csv, the options in the query.
        path: (p: string) =>
          p.startsWith("/api/v1/workspaces/ws_01trial/contacts/import?") && p.includes(query),
        method: "POST",
        headers: { "content-type": "text/csv" },
      })
      .reply(202, envelope(contactImport("queued", 0)), { headers: jsonHeaders });
    if (!polls) return;
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial/contacts/imports/imp_01onboard" })
      .reply(200, envelope(contactImport("completed", 2)), { headers: jsonHeaders })
      .persist(); // however often the import is read until it ends
  }

  /** Stubs an import that completes, giving back the query its upload was sent with. */
  function stubImportQuery(): () => URLSearchParams {
    let query = new URLSearchParams();
    api.pool
      .intercept({
        path: (p: string) => {
          if (!p.startsWith("/api/v1/workspaces/ws_01trial/contacts/import?")) return false;
          query = new URLSearchParams(p.split("?")[1]);
          return true;
        },
        method: "POST",
      })
      .reply(202, envelope(contactImport("queued", 0)), { headers: jsonHeaders });
    api.pool
      .intercept({ path: "/api/v1/workspaces/ws_01trial/contacts/imports/imp_01onboard" })
      .reply(200, envelope(contactImport("completed", 2)), { headers: jsonHeaders })
      .persist();
    return () => query;
  }

  it("imports a CSV file into the new workspace when asked, with the import's summary", async () => {
    const file = csvFile();
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubImport("default_country=DE");
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": true,
      "CSV file": file,
      "Country of numbers": "de",
      "pricing page": false,
      "Create workspace": true,
    });
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toContain("CSV file to import");
    expect(run.stdout).toContain("Contact import");
    expect(run.stderr).toContain("Import imp_01onboard completed: 2 created, 0 updated");
    expect(run.stderr).not.toContain("reseller contacts import contacts.csv");
  });

  it("says what was created and what was not when Ctrl-C stops the import, exit 130", async () => {
    const file = csvFile();
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    api.pool
      .intercept({ path: (p: string) => p.includes("/contacts/import"), method: "POST" })
      // Ctrl-C while the file goes up.
      .reply(replyAfterCtrlC(envelope(contactImport("queued", 0)), 202));
    const run = await runCli([...acmeWithToken, "--import", file, "--yes"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("Interrupted during the contact import.");
    expect(run.stderr).toContain("Created: workspace Acme Bakery (ws_01trial)");
    expect(run.stderr).toContain("reseller contacts imports list -w ws_01trial");
    expect(run.stderr).toContain(
      'Not created: the pricing-page token. Create it with: reseller workspaces tokens create -w ws_01trial --name "pricing page" --scope plans:read',
    );
    expect(process.listenerCount("SIGINT")).toBe(0);
  });

  it("hands the terminal back and names the import when Ctrl-C stops following it", async () => {
    const file = csvFile();
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    api.pool
      .intercept({ path: (p: string) => p.includes("/contacts/import"), method: "POST" })
      .reply(202, envelope(contactImport("queued", 0)), { headers: jsonHeaders });
    api.pool
      .intercept({ path: (p: string) => p.includes("/contacts/imports/imp_01onboard") })
      // Ctrl-C while the progress bar shows.
      .reply(replyAfterCtrlC(envelope(contactImport("processing", 1))));
    const run = await runCli([...acme, "--import", file, "--yes"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("Interrupted during the contact import.");
    expect(run.stderr).toContain(
      "Stopped following import imp_01onboard; it goes on in the service. Follow it with `reseller contacts imports get imp_01onboard -w ws_01trial`",
    );
    // The progress bar hid the cursor; it is shown again.
    expect(run.stderr.lastIndexOf("\u001b[?25h")).toBeGreaterThan(
      run.stderr.lastIndexOf("\u001b[?25l"),
    );
    expect(process.listenerCount("SIGINT")).toBe(0);
  });

  it("refuses a file the import would refuse before creating anything, at a terminal with --yes as without one", async () => {
    const file = csvFile(withoutPhoneColumn);
    const argv = ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test"];
    for (const tty of [false, true]) {
      const prompter = scriptedPrompter({});
      const run = await runCli([...argv, "--plan", "2", "--import", file, "--yes"], {
        tty,
        env: api.env,
        dispatcher: api.agent,
        prompter,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        "Error: The file cannot be imported: the header has no 'phone' column (found 'Name', 'Handset')",
      );
      expect(run.stderr).toContain(`Hint: Nothing was created. Fix ${file}`);
      expect(prompter.asked).toEqual([]);
    }
  });

  it("maps the columns of a file without a phone column before the last question, and imports with that mapping", async () => {
    const file = csvFile(withoutPhoneColumn);
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    const sent = stubImportQuery();
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": true,
      "CSV file": file,
      "Country of numbers": "",
      "column 'Name'": "first_name",
      "column 'Handset'": "phone",
      "pricing page": false,
      "Create workspace": true,
    });
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked.slice(6)).toEqual([
      expect.stringContaining("Country of numbers"),
      expect.stringContaining("Field for column 'Name'"),
      expect.stringContaining("Field for column 'Handset'"),
      "Create a plans:read token for the client's pricing page?",
      expect.stringContaining("Create workspace 'Acme'"),
    ]);
    expect(JSON.parse(sent().get("mapping") ?? "null")).toEqual({
      Name: "first_name",
      Handset: "phone",
    });
  });

  it("asks for the encoding of a file that is not UTF-8 before creating anything, and says the flags for next time", async () => {
    const file = csvFile();
    writeFileSync(file, Buffer.from("phone,first_name\n+4915112345678,René\n", "latin1"));
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    const sent = stubImportQuery();
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": true,
      "CSV file": file,
      "Which encoding": "windows-1252",
      "Country of numbers": "",
      "pricing page": false,
      "Create workspace": true,
    });
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toContain("Which encoding is it in? (a line of it read in each)");
    expect(
      prompter.asked.indexOf("Which encoding is it in? (a line of it read in each)"),
    ).toBeLessThan(prompter.asked.findIndex((q) => q.includes("Create workspace")));
    expect(sent().get("encoding")).toBe("windows-1252");
    expect(run.stderr).toContain(
      "The same file next time, without questions: --encoding windows-1252",
    );
  });

  it("creates nothing when Ctrl-C stops the column mapping", async () => {
    const file = csvFile(withoutPhoneColumn);
    stubCatalogue();
    const prompter = scriptedPrompter({
      "Client business name": "Acme",
      "Contact email": "o@acme.test",
      Plan: "2",
      "Send the invitation": true,
      "Import contacts": true,
      "CSV file": file,
      "Country of numbers": "",
    });
    const input = prompter.input;
    prompter.input = async (q) => {
      if (q.message.startsWith("Field for column")) {
        throw Object.assign(new Error("User force closed the prompt"), { name: "ExitPromptError" });
      }
      return input(q);
    };
    const run = await runCli(["workspaces", "onboard"], {
      tty: true,
      env: api.env,
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code).toBe(130);
    expect(run.stderr).not.toContain("Onboarded");
  });

  it("reads the file's columns, separator and encoding from --map, --delimiter and --encoding without a terminal", async () => {
    const file = csvFile("Name;Handset\nAnna;+4915112345678\nBen;+4915112345679\n");
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    const sent = stubImportQuery();
    const run = await runCli(
      [
        ...["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test", "--plan", "2"],
        ...["--import", file, "--map", "Handset=phone", "--map", "Name=first_name"],
        ...["--delimiter", ";", "--encoding", "windows-1252", "--json"],
      ],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code, run.stderr).toBe(0);
    const query = sent();
    expect(JSON.parse(query.get("mapping") ?? "null")).toEqual({
      Handset: "phone",
      Name: "first_name",
    });
    expect(query.get("delimiter")).toBe(";");
    expect(query.get("encoding")).toBe("windows-1252");
  });

  it("names the import's country, columns and separator in the retry line when the import fails", async () => {
    const file = csvFile("Name;Handset\nAnna;015112345678\n");
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    api.pool
      .intercept({
        path: (p: string) => p.startsWith("/api/v1/workspaces/ws_01trial/contacts/import?"),
        method: "POST",
      })
      .reply(
        409,
        { status: "error", error_code: "workspace_not_active", message: "Not active." },
        { headers: jsonHeaders },
      );
    const run = await runCli(
      [
        ...["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test", "--plan", "2"],
        ...["--import", file, "--default-country", "DE", "--map", "Handset=phone"],
        ...["--delimiter", ";"],
      ],
      { env: api.env, dispatcher: api.agent },
    );
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(
      `Retry with: reseller contacts import ${file} -w ws_01trial --default-country DE --map "Handset=phone" --delimiter ';'`,
    );
  });

  it("refuses --map, --delimiter and the like without --import and without a terminal, before any request", async () => {
    const argv = ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test"];
    const run = await runCli(
      [...argv, "--plan", "2", "--map", "Handset=phone", "--delimiter", ";"],
      {
        env: api.env,
        dispatcher: api.agent,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--map, --delimiter read the file of --import, which is not given.",
    );
    const both = await runCli(
      [...argv, "--plan", "2", "--default-country", "DE", "--map", "Handset=phone", "--yes"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(both.stderr).toContain(
      "--map, --default-country read the file of --import, which is not given.",
    );
    const country = await runCli([...argv, "--plan", "2", "--default-country", "DE", "--yes"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(country.code).toBe(2);
    expect(country.stderr).toContain(
      "--default-country reads the file of --import, which is not given.",
    );
  });

  it("says on stderr with --json, --quiet or piped that the import refused rows, as `contacts import` does; piped, each on a line led by contact_import.errors", async () => {
    const refusedRow = {
      ...contactImport("completed", 2),
      created: 1,
      error_count: 1,
      errors: [
        { row: 2, phone: "12345", field: "phone", message: "'12345' is not a phone number" },
      ],
    };
    for (const mode of ["--json", "--quiet", "piped"]) {
      const file = csvFile();
      stubCatalogue();
      stubCreate({
        name: "Acme",
        contact_email: "o@acme.test",
        send_invitation: true,
        plan_id: "2",
      });
      api.pool
        .intercept({
          path: (p: string) => p.startsWith("/api/v1/workspaces/ws_01trial/contacts/import?"),
          method: "POST",
        })
        .reply(202, envelope(contactImport("queued", 0)), { headers: jsonHeaders });
      api.pool
        .intercept({ path: "/api/v1/workspaces/ws_01trial/contacts/imports/imp_01onboard" })
        .reply(200, envelope(refusedRow), { headers: jsonHeaders })
        .persist();
      const argv = ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test"];
      const flags = mode === "piped" ? [] : [mode];
      const run = await runCli([...argv, "--plan", "2", "--import", file, ...flags], {
        env: api.env,
        dispatcher: api.agent,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr, mode).toMatch(/1 error/);
      if (mode === "piped") {
        expect(run.stdout).toContain(
          "\ncontact_import.errors\t2\t12345\tphone\t'12345' is not a phone number\n",
        );
        expect(run.stdout).toContain("\ncontact_import.import_id\timp_01onboard\n");
      }
      api.done();
      api = mockApi();
    }
  });

  it("imports with --import (and --default-country) without a terminal, the import in the JSON; a missing file is a usage error", async () => {
    const file = csvFile();
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubImport();
    const argv = ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test"];
    const run = await runCli([...argv, "--plan", "2", "--import", file, "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      workspace: starterWorkspace,
      contact_import: contactImport("completed", 2),
      pricing_token: null,
    });
    stubCatalogue();
    stubCreate({ name: "Acme", contact_email: "o@acme.test", send_invitation: true, plan_id: "2" });
    stubImport("default_country=DE", false);
    const national = await runCli(
      [...argv, "--plan", "2", "--import", file, "--default-country", "DE", "--json"],
      { env: api.env, dispatcher: api.agent },
    );
    expect(national.code, national.stderr).toBe(0);
    const missing = await runCli([...argv, "--plan", "2", "--import", "/no/such.csv"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read --import file '/no/such.csv': no such file.");
    const folder = await runCli([...argv, "--plan", "2", "--import", tmpdir()], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain("it is a folder, not a file.");
  });
});
