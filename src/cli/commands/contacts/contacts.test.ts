import { afterEach, describe, expect, it } from "vitest";
import { anna, base, ben, envelope, ws } from "../../../../test/fixtures/contacts.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller contacts list, get, upsert, update and tags list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: ws, NO_COLOR: "1" });

  it("shows contacts as a table at a terminal and passes search and filters", async () => {
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "GET",
        query: {
          search: "anna schm",
          tag: "vip",
          opt_in_status: "opted_in",
          page: "1",
          per_page: "20",
        },
      })
      .reply(200, envelope([anna], {}), { headers: jsonHeaders });
    const run = await runCli(
      ["contacts", "list", "--search", "anna schm", "--tag", "vip", "--opt-in-status", "opted_in"],
      { tty: true, env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(
      /^ID\s+PHONE\s+FIRST NAME\s+LAST NAME\s+EMAIL\s+TAGS\s+OPT-IN\s+UPDATED$/,
    );
    expect(run.stdout).toContain("+4915112345678");
    expect(run.stdout).toContain("vip,newsletter");
  });

  it("shows a broad search's total as at least that many", async () => {
    const broad = (page: number) => ({
      page,
      per_page: 20,
      total: 1000,
      total_pages: 50,
      total_is_lower_bound: true,
      next_cursor: "c",
    });
    for (const page of [1, 400]) {
      api.pool
        .intercept({
          path: `${base}/contacts`,
          method: "GET",
          query: { search: "a", page: String(page), per_page: "20" },
        })
        // Past the end, a page shows nothing.
        .reply(200, envelope(page === 1 ? [anna] : [], broad(page)), { headers: jsonHeaders });
    }
    const first = await runCli(["contacts", "list", "--search", "a"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(first.stderr).toBe(
      "Page 1 of 50+ (1000+ contacts): --page 2 for the next, --all for every page.\n",
    );
    const deep = await runCli(["contacts", "list", "--search", "a", "--page", "400"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(deep.stderr).toBe("Page 400 is past the last page (50+; 1000+ contacts in all).\n");
  });

  it("prints tab-separated rows when piped and follows every cursor with --all", async () => {
    api.pool
      .intercept({ path: `${base}/contacts`, method: "GET", query: { per_page: "20" } })
      .reply(200, envelope([anna], { next_cursor: "c2" }), { headers: jsonHeaders });
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "GET",
        query: { per_page: "20", cursor: "c2" },
      })
      .reply(200, envelope([ben], {}), { headers: jsonHeaders });
    const run = await runCli(["contacts", "list", "--all", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      "ct_01anna\t+4915112345678\tAnna\tSchmidt\tanna@example.com\tvip,newsletter\topted_in\t2026-11-21T08:00:00Z",
      "ct_01ben\t+4915223456789\tBen\t\t\t\tnot_set\t2026-11-21T08:00:00Z",
      "",
    ]);
  });

  it("refuses --page with --all, which follows every page from the first", async () => {
    const run = await runCli(["contacts", "list", "--all", "--page", "2", "-w", ws], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--page and --all do not go together");
  });

  it("says how to choose a workspace when none is set", async () => {
    const run = await runCli(["contacts", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--workspace");
  });

  it("shows one contact with its custom fields and consent", async () => {
    api.pool
      .intercept({ path: `${base}/contacts/ct_01anna`, method: "GET" })
      .reply(200, envelope(anna), { headers: jsonHeaders });
    const run = await runCli(["contacts", "get", "ct_01anna"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.stdout).toMatch(/custom\.city:\s+Berlin/);
    expect(run.stdout).toMatch(/Opt-in source:\s+checkout form/);
  });

  it("gives first and last name apart when piped, one Name line at a terminal", async () => {
    const commaInName = { ...anna, first_name: "Schmidt, Anna", last_name: null };
    for (const tty of [false, true]) {
      api.pool
        .intercept({ path: `${base}/contacts/ct_01anna`, method: "GET" })
        .reply(200, envelope(commaInName), { headers: jsonHeaders });
      const run = await runCli(["contacts", "get", "ct_01anna"], {
        tty,
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      if (tty) {
        expect(run.stdout).toMatch(/Name:\s+Schmidt, Anna\n/);
      } else {
        const lines = run.stdout.split("\n");
        expect(lines).toContain("first_name\tSchmidt, Anna");
        expect(lines).toContain("last_name\t");
        expect(lines.some((line) => line.startsWith("name\t"))).toBe(false);
      }
    }
  });

  it("upserts with the body built from the flags and says whether it created or updated", async () => {
    const expected = {
      phone: "+4915112345678",
      first_name: "Anna",
      tags: ["vip", "newsletter"],
      custom_fields: { city: "Berlin", note: "a=b" },
      opt_in_status: "opted_in",
    };
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "POST",
        body: (body: string) => JSON.stringify(JSON.parse(body)) === JSON.stringify(expected),
      })
      .reply(201, envelope(anna), { headers: jsonHeaders });
    const run = await runCli(
      [
        "contacts",
        "upsert",
        "--phone",
        "+4915112345678",
        "--first-name",
        "Anna",
        "--tag",
        "vip",
        "--tag",
        "newsletter",
        "--field",
        "city=Berlin",
        "--field",
        "note=a=b",
        "--opt-in",
        "opted_in",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("Created contact ct_01anna (+4915112345678).\n");
  });

  it("takes a phone written as people write it (+49 151 1234-5678) and sends its E.164 form", async () => {
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "POST",
        body: (body: string) => JSON.parse(body).phone === "+4915112345678",
      })
      .reply(201, envelope(anna), { headers: jsonHeaders });
    const run = await runCli(["contacts", "upsert", "--phone", "+49 (151) 1234-5678"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code, run.stderr).toBe(0);
    // Without its country code it is refused, never guessed.
    const national = await runCli(["contacts", "upsert", "--phone", "0151 1234 5678"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(national.code).toBe(2);
    expect(national.stderr).toContain("--phone: '0151 1234 5678' is not in E.164");
  });

  it("asks for a missing --phone at a terminal, and names it where nothing is asked", async () => {
    api.pool
      .intercept({
        path: `${base}/contacts`,
        method: "POST",
        body: (body: string) => JSON.parse(body).phone === "+4915112345678",
      })
      .reply(201, envelope(anna), { headers: jsonHeaders });
    const prompter = scriptedPrompter({ Phone: "+4915112345678" });
    const asked = await runCli(["contacts", "upsert", "--first-name", "Anna"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(asked.code, asked.stderr).toBe(0);
    expect(prompter.asked).toEqual(["Phone (E.164, e.g. +4915112345678)"]);
    const piped = await runCli(["contacts", "upsert"], { env: env(), dispatcher: api.agent });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain("Missing --phone.");
    // Without a workspace, nothing is asked in vain.
    const nowhere = scriptedPrompter({});
    const noWorkspace = await runCli(["contacts", "upsert"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
      prompter: nowhere,
    });
    expect(noWorkspace.code).toBe(2);
    expect(noWorkspace.stderr).toContain("No workspace given.");
    expect(nowhere.asked).toEqual([]);
  });

  it("says why an upsert left the contact opted out", async () => {
    const notice = "the contact opted out and stays opted out";
    api.pool.intercept({ path: `${base}/contacts`, method: "POST" }).reply(
      200,
      {
        status: "success",
        data: anna,
        meta: { notices: [{ field: "opt_in_status", message: notice }] },
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(
      ["contacts", "upsert", "--phone", "+4915112345678", "--opt-in", "opted_in"],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `Updated contact ct_01anna (+4915112345678).\nopt_in_status: ${notice}\n` +
        'To re-subscribe them with consent given again: reseller contacts update ct_01anna --opt-in opted_in --opt-in-source "<where the consent came from>"\n',
    );
  });

  it.each([
    [["--phone", "0151 12345678"], "--phone"],
    [["--phone", "+4915112345678", "--field", "novalue"], "key=value"],
    [["--phone", "+4915112345678", "--tag", "a,b"], "--tag"],
    [["--phone", "+4915112345678", "--opt-in", "opted_out"], "opted_out"],
    [["--first-name", "Anna"], "--phone"],
  ])("refuses %j before any request (exit 2)", async (flags, words) => {
    const run = await runCli(["contacts", "upsert", ...flags], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(words);
  });

  it.each([
    [["--remove-field", ""], "--remove-field"],
    [["--remove-field", "k".repeat(65)], "--remove-field"],
    [["--field", "city=Berlin", "--remove-field", "city"], "contradict"],
  ])("refuses update %j before any request (exit 2)", async (flags, words) => {
    const run = await runCli(["contacts", "update", "ct_01anna", ...flags], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(words);
  });

  it("updates only what is given: --clear-tags, --remove-field and an opt-out", async () => {
    const expected = { custom_fields: { city: null }, opt_in_status: "opted_out", tags: [] };
    api.pool
      .intercept({
        path: `${base}/contacts/ct_01anna`,
        method: "PATCH",
        body: (body: string) => JSON.stringify(JSON.parse(body)) === JSON.stringify(expected),
      })
      .reply(200, envelope({ ...anna, tags: [], custom_fields: {}, opt_in_status: "opted_out" }), {
        headers: jsonHeaders,
      });
    const run = await runCli(
      [
        "contacts",
        "update",
        "ct_01anna",
        "--remove-field",
        "city",
        "--opt-in",
        "opted_out",
        "--clear-tags",
        "--json",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).opt_in_status).toBe("opted_out");
  });

  /** The service refusing the next PATCH of ct_01anna with a 422 naming `field`. */
  const refuseUpdate = (field: string, message: string) =>
    api.pool.intercept({ path: `${base}/contacts/ct_01anna`, method: "PATCH" }).reply(
      422,
      {
        status: "error",
        error_code: "validation_failed",
        message: `${field}: ${message}`,
        details: [{ field, message }],
      },
      { headers: jsonHeaders },
    );

  it("names the flag of a field the service asks for: opting a contact back in needs --opt-in-source", async () => {
    refuseUpdate("opt_in_source", "is required to opt an opted-out contact back in");
    const run = await runCli(["contacts", "update", "ct_01anna", "--opt-in", "opted_in"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "Hint: With `reseller contacts update`: opt_in_source is --opt-in-source.",
    );
  });

  it("names --opted-in-at when the service refuses the consent time", async () => {
    refuseUpdate("opted_in_at", "is earlier than this contact's opt-out (2026-11-22T11:30:00Z)");
    const run = await runCli(
      [
        "contacts",
        "update",
        "ct_01anna",
        "--opt-in",
        "opted_in",
        "--opt-in-source",
        "form",
        "--opted-in-at",
        "2026-11-22T09:00:00Z",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "Hint: With `reseller contacts update`: opted_in_at is --opted-in-at.",
    );
  });

  it("refuses an update that changes nothing (exit 2)", async () => {
    const run = await runCli(["contacts", "update", "ct_01anna"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Nothing to change");
  });

  it("refuses a field the service would refuse before any request, naming its flag (exit 2)", async () => {
    for (const args of [
      ["contacts", "upsert", "--phone", "+4915112345678", "--email", "notanemail"],
      ["contacts", "update", "ct_01anna", "--email", "bad@"],
      ["contacts", "update", "ct_01anna", "--first-name", "x".repeat(5000)],
    ]) {
      const run = await runCli(args, { env: env(), dispatcher: api.agent });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(/^Error: --(email|first-name): /);
    }
  });

  it("exits 5 with the service's message on a plan limit", async () => {
    api.pool.intercept({ path: `${base}/contacts`, method: "POST" }).reply(
      409,
      {
        status: "error",
        error_code: "plan_limit_exceeded",
        message: "The workspace's plan allows 500 for 'contacts' and 500 are used.",
        details: [{ field: "contacts", message: "limit 500, used 500", limit: 500, used: 500 }],
      },
      { headers: jsonHeaders },
    );
    const run = await runCli(["contacts", "upsert", "--phone", "+4915112345678"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("plan_limit_exceeded");
  });

  it("lists tags with counts, names only with --quiet", async () => {
    const tags = [
      { name: "vip", contact_count: 1200, created_at: "2026-11-20T08:00:00Z" },
      { name: "b2b", contact_count: 3, created_at: "2026-11-19T08:00:00Z" },
    ];
    api.pool
      .intercept({ path: `${base}/tags`, method: "GET", query: { page: "1", per_page: "20" } })
      .reply(200, envelope(tags, {}), { headers: jsonHeaders });
    const table = await runCli(["tags", "list"], { tty: true, env: env(), dispatcher: api.agent });
    expect(table.stdout).toMatch(/vip\s+1,200/);
    api.pool
      .intercept({ path: `${base}/tags`, method: "GET", query: { page: "1", per_page: "20" } })
      .reply(200, envelope(tags, {}), { headers: jsonHeaders });
    const quiet = await runCli(["tags", "list", "--quiet"], { env: env(), dispatcher: api.agent });
    expect(quiet.stdout).toBe("vip\nb2b\n");
  });
});
