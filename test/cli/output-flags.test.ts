import { stripVTControlCharacters } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { renderResult } from "../../src/cli/output/render.js";
import { recordView, stackView, tableView, textView } from "../../src/cli/output/view.js";
import { planList } from "../fixtures/plans.js";
import { errorBody } from "../fixtures/templates.js";
import { runCli } from "../helpers/cli.js";
import { jsonHeaders, mockApi } from "../helpers/mock-api.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
const ansi = /\u001b\[/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
const colours = /\u001b\[[0-9;]*m/g;

describe("colour and --quiet, the same for every command", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  async function plansList(
    argv: string[],
    options: { tty: boolean; env?: Record<string, string> },
  ) {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET" })
      .reply(200, planList, { headers: jsonHeaders });
    return runCli(["plans", "list", ...argv], {
      tty: options.tty,
      env: { ...api.env, ...options.env },
      dispatcher: api.agent,
    });
  }

  it("colours tables at a terminal", async () => {
    expect((await plansList([], { tty: true })).stdout).toMatch(ansi);
  });

  it("turns colour off with NO_COLOR, --no-color, FORCE_COLOR=0, in CI and on a dumb terminal, tables kept", async () => {
    for (const [argv, env] of [
      [[], { NO_COLOR: "1" }],
      [["--no-color"], {}],
      [[], { FORCE_COLOR: "0" }],
      [["--no-color"], { FORCE_COLOR: "1" }],
      [[], { CI: "true" }],
      [[], { TERM: "dumb" }],
    ] as const) {
      const run = await plansList([...argv], { tty: true, env });
      expect(run.stdout, JSON.stringify({ argv, env })).not.toMatch(ansi);
      expect(run.stdout).toMatch(/^ID\s+NAME/);
    }
  });

  it("colours a CI run's terminal output when FORCE_COLOR asks", async () => {
    expect(
      (await plansList([], { tty: true, env: { CI: "true", FORCE_COLOR: "1" } })).stdout,
    ).toMatch(ansi);
  });

  it("keeps piped values as they are with FORCE_COLOR: only status words get colour, and plans have none", async () => {
    const run = await plansList([], { tty: false, env: { FORCE_COLOR: "1" } });
    expect(run.stdout).not.toMatch(ansi);
    expect(run.stdout.split("\n")[0]).toMatch(/^1\tFree/);
  });

  it("prints a service's error message without its control characters", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET" })
      .reply(422, errorBody("validation_failed", "Bad \u001b]0;owned\u0007name \u001b[2J", []), {
        headers: jsonHeaders,
      });
    const run = await runCli(["plans", "list"], { tty: true, env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("Bad ]0;ownedname [2J");
    expect(run.stderr).not.toContain("\u001b");
  });

  it("says each field a 422 names once, not again in the message above it", async () => {
    api.pool.intercept({ path: "/api/v1/plans", method: "GET" }).reply(
      422,
      errorBody(
        "validation_failed",
        "Invalid request. url: must be an http or https URL; events: must not be empty",
        [
          { field: "url", message: "must be an http or https URL" },
          { field: "events", message: "must not be empty" },
        ],
      ),
      { headers: jsonHeaders },
    );
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "Error: Invalid request. (validation_failed, HTTP 422)\n  url: must be an http or https URL\n  events: must not be empty\n",
    );
    expect(run.stderr.split("must not be empty")).toHaveLength(2);
  });

  it("names where the base URL comes from when something other than the service answers", async () => {
    api.pool
      .intercept({ path: "/api/v1/plans", method: "GET" })
      .reply(200, "<!DOCTYPE html><title>Router</title>", {
        headers: { "content-type": "text/html" },
      });
    const run = await runCli(["plans", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("without the reseller service's JSON envelope");
    expect(run.stderr).toContain("Hint: Check that the address");
    expect(run.stderr).toContain("--base-url, RESELLER_BASE_URL or the profile");
  });

  it("prints ids only with --quiet, at a terminal too", async () => {
    const run = await plansList(["--quiet"], { tty: true });
    expect(run.stdout).toBe("1\n2\n3\n");
  });
});

describe("the output writer", () => {
  const render = async (
    view: Parameters<typeof renderResult>[0]["view"],
    mode: "plain" | "table" | "quiet",
    color: boolean,
  ) => {
    let text = "";
    await renderResult({ view }, mode, {
      write: (t) => (text += t),
      inform: (t) => (text += `(stderr) ${t}`),
      color,
    });
    return text;
  };

  it("colours free text when piped only if colour was forced", async () => {
    const view = textView((paint) => paint.good("approved"));
    expect(await render(view, "plain", true)).toMatch(ansi);
    expect(await render(view, "plain", false)).toBe("approved\n");
  });

  it("paints only the status words of piped table rows and records, and only with colour forced", async () => {
    const rows = [{ id: "a", status: "active" }];
    const table = tableView(rows, [
      {
        header: "Status",
        key: "status",
        value: (r) => r.status,
        display: (r, p) => p.status(r.status),
      },
    ]);
    expect(await render(table, "plain", true)).toBe("\u001b[32mactive\u001b[39m\n");
    expect(await render(table, "plain", false)).toBe("active\n");
    const record = recordView(rows[0], [
      {
        header: "Status",
        key: "status",
        value: (r) => r?.status,
        display: (r, p) => p.status(r?.status ?? ""),
      },
    ]);
    expect(await render(record, "plain", true)).toBe("status\t\u001b[32mactive\u001b[39m\n");
    expect(await render(record, "plain", false)).toBe("status\tactive\n");
  });

  it("writes the same piped values with colour forced once its codes are stripped, keyed parts of a stack included", async () => {
    const status = {
      header: "Status",
      key: "status",
      value: (r: { status: string }) => r.status,
      display: (r: { status: string }, p: { status(word: string): string }) => p.status(r.status),
    };
    const view = stackView(
      { key: "contact_import", view: recordView({ status: "completed" }, [status]) },
      { key: "errors", view: tableView([{ status: "failed" }], [status]) },
    );
    const plain = await render(view, "plain", false);
    expect(plain).toBe("contact_import.status\tcompleted\nerrors\tfailed\n");
    const painted = await render(view, "plain", true);
    expect(painted).toMatch(ansi);
    expect(stripVTControlCharacters(painted)).toBe(plain);
  });

  it("prints a service's text at a terminal without its control characters, colour kept", async () => {
    const rows = [
      { id: "c1", name: "Eve\u001b[2J\u001b]0;owned\u0007\tTab\nLine", status: "active" },
    ];
    const table = tableView(rows, [
      { header: "Name", key: "name", value: (r) => r.name, display: (r, p) => p.bold(r.name) },
      { header: "Status", key: "status", value: (r) => r.status },
    ]);
    const shown = await render(table, "table", true);
    for (const control of ["\u001b[2J", "\u001b]", "\u0007", "\t"]) {
      expect(shown).not.toContain(control);
    }
    expect(shown).toMatch(ansi);
    // One row: the line break became a space, so the columns stay in line.
    expect(shown.trimEnd().split("\n")).toHaveLength(2);
    expect(shown.replace(colours, "")).toContain("Eve[2J]0;owned Tab Line  active");
    // A colour of the data's own (hidden text) is dropped; ours stays.
    const hidden = tableView(
      [{ name: "\u001b[8mhidden" }],
      [{ header: "Name", key: "name", value: (r) => r.name, display: (r, p) => p.bold(r.name) }],
    );
    expect(await render(hidden, "table", true)).not.toContain("\u001b[8m");
    expect(await render(hidden, "table", false)).not.toMatch(ansi);
    const record = recordView(rows[0], [{ header: "Name", key: "name", value: (r) => r?.name }]);
    expect(await render(record, "table", false)).toBe("Name: Eve[2J]0;owned Tab\n      Line\n");
  });

  it("pipes the service's text without its control characters too, in plain lines and --csv", async () => {
    const rows = [{ id: "c1", name: "Eve\u001b[2J\u001b]0;owned\u0007\tTab\nLine" }];
    const table = tableView(rows, [{ header: "Name", key: "name", value: (r) => r.name }]);
    expect(await render(table, "plain", false)).toBe("Eve[2J]0;owned Tab Line\n");
    let csv = "";
    await renderResult({ view: table }, "csv", {
      write: (t) => (csv += t),
      inform: () => {},
      color: false,
    });
    expect(csv).toBe('name\n"Eve[2J]0;owned\tTab\nLine"\n');
  });

  it("says that a list is empty on stderr, leaving stdout to data", async () => {
    const table = tableView(
      [] as { name: string }[],
      [{ header: "Name", key: "name", value: (r) => r.name }],
      { empty: "No contacts match." },
    );
    expect(await render(table, "table", false)).toBe("(stderr) No contacts match.\n");
  });

  /** A one-row table of `record`'s fields, as a terminal `columns` wide shows it, uncoloured. */
  const oneRowAt = async (record: Record<string, string | number>, columns: number) => {
    const table = tableView(
      [record],
      Object.keys(record).map((key) => ({ header: key, key, value: (r) => String(r[key]) })),
    );
    let text = "";
    await renderResult({ view: table }, "table", {
      write: (t) => (text += t),
      inform: () => {},
      color: false,
      columns,
    });
    return text.trimEnd().split("\n");
  };

  it("fits a table to the terminal's width, cutting long values with an ellipsis, never an id", async () => {
    const id = "ct_01JD3FZK8Q2W7N5V4X6B9C1A0E";
    const rows = [
      { id, name: "A".repeat(90), email: `${"e".repeat(60)}@example.com`, status: "active" },
      {
        id: "ct_01JD3FZK8Q2W7N5V4X6B9C1A0F",
        name: "Ben",
        email: "ben@example.com",
        status: "active",
      },
    ];
    const table = tableView(rows, [
      { header: "Id", key: "id", value: (r) => r.id },
      { header: "Name", key: "name", value: (r) => r.name, display: (r, p) => p.bold(r.name) },
      { header: "Email", key: "email", value: (r) => r.email },
      {
        header: "Status",
        key: "status",
        value: (r) => r.status,
        display: (r, p) => p.status(r.status),
      },
    ]);
    const shown = async (columns: number) => {
      let text = "";
      await renderResult({ view: table }, "table", {
        write: (t) => (text += t),
        inform: () => {},
        color: true,
        columns,
      });
      return text.replace(colours, "").trimEnd().split("\n");
    };
    const lines = await shown(100);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${id} {2}A{20,}… {2}e{20,}… {2}active$`));
    expect(lines[2]).toMatch(/^ct_01JD3FZK8Q2W7N5V4X6B9C1A0F {2}Ben +ben@example\.com +active$/);
    // No width known (0 from a pseudo-terminal without a size, or none): nothing cut.
    expect((await shown(0)).join("\n")).toContain("A".repeat(90));
    expect(await render(table, "table", false)).toContain("A".repeat(90));
  });

  it("leaves out the last columns, and says which, when even cut values cannot fit; never cuts a phone number", async () => {
    const contact = {
      id: "ct_01JD3FZK8Q2W7N5V4X6B9C1A0E",
      phone: "+4915112345678",
      first: "Annabelle",
      last: "Schmidt-Rottluff",
      email: "annabelle.schmidt@example.com",
      tags: "vip,berlin",
      status: "opted_in",
      updated: "2026-11-29 02:12 UTC",
    };
    const table = tableView(
      [contact],
      Object.keys(contact).map((key) => ({
        header: key,
        key,
        value: (r: typeof contact) => String(r[key as keyof typeof contact]),
      })),
    );
    const shown = async (columns: number) => {
      let text = "";
      let told = "";
      await renderResult({ view: table }, "table", {
        write: (t) => (text += t),
        inform: (t) => (told += t),
        color: false,
        columns,
      });
      return { lines: text.trimEnd().split("\n"), told };
    };
    const narrow = await shown(80);
    for (const line of narrow.lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(narrow.lines[1]).toMatch(
      /^ct_01JD3FZK8Q2W7N5V4X6B9C1A0E {2}\+4915112345678 {2}Annabelle/,
    );
    expect(narrow.told).toBe(
      "Not shown at this width: TAGS, STATUS, UPDATED (a wider terminal, --json or --csv shows them).\n",
    );
    // Wide enough once cut: every column, nothing said.
    const wide = await shown(120);
    expect(wide.lines[1]).toContain("opted_in  2026-11-29");
    expect(wide.told).toBe("");
  });

  it("fits a table of many middling columns to an 80-column terminal too", async () => {
    const plan = {
      id: 3,
      name: "Growth",
      slug: "growth-quarterly",
      period: "Quarterly",
      price: "Free · 14-day trial",
      visibility: "public",
      link: "http://127.0.0.1:47820/register?plan=growth-quarterly",
    };
    const lines = await oneRowAt(plan, 80);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^3 +Growth {2}growth-/);
    expect(lines[1]).toContain("…");
  });

  it("prints the ids of every part with --quiet, nothing for free text without ids", async () => {
    expect(await render(tableView([{ id: "x" }, { id: 7 }], []), "quiet", false)).toBe("x\n7\n");
    expect(
      await render(
        textView(() => "hello"),
        "quiet",
        false,
      ),
    ).toBe("");
  });
});
