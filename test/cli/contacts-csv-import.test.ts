import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Prompter } from "../../src/cli/prompts.js";
import { ContactListResponse } from "../../src/contract/contacts.js";
import { type CliRun, runCli, scriptedPrompter } from "../helpers/cli.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/**
 * `reseller contacts import` with files as people have them, run in process against a live
 * service: the real HTTP client, the real upload, the real import job.
 */

const fixtures = join(import.meta.dirname, "../fixtures/csv");
const fixture = (name: string) => join(fixtures, name);

function tempFile(name: string, content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), name);
  writeFileSync(file, content);
  return file;
}

describe("reseller contacts import with real-shaped files", () => {
  let t: TestApp;
  let ws: string;
  let url: string;
  beforeEach(async () => {
    t = await startTestApp();
    ws = await t.createWorkspace();
    url = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => t.close());

  const env = (workspace = ws) => ({
    RESELLER_BASE_URL: url,
    RESELLER_TOKEN: t.token,
    RESELLER_WORKSPACE: workspace,
    NO_COLOR: "1",
  });

  /** Runs the CLI while the service's job runner works through the queued import. */
  async function cli(
    args: string[],
    options: { tty?: boolean; prompter?: Prompter; workspace?: string; stdin?: string } = {},
  ): Promise<CliRun> {
    let finished = false;
    const run = runCli(args, {
      env: env(options.workspace),
      ...(options.tty ? { tty: true } : {}),
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.prompter ? { prompter: options.prompter } : {}),
    }).finally(() => {
      finished = true;
    });
    while (!finished) {
      await t.runJobs();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return run;
  }

  async function contacts(workspace = ws) {
    const res = await t.request("GET", `/api/v1/workspaces/${workspace}/contacts?per_page=100`);
    return ContactListResponse.parse(res.json()).data;
  }

  it("imports a file piped into standard input as `-`, its layout detected as for a named file", async () => {
    const run = await cli(["contacts", "import", "-", "--default-country", "DE"], {
      stdin: readFileSync(fixture("semicolon-excel.csv"), "utf8"),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/queued: \d+ rows from standard input\./);
    expect(run.stderr).toContain("(separator ';', utf-8)");
    expect((await contacts()).map((c) => c.first_name)).toContain("Jürgen");
  });

  it("refuses `-` when standard input is the terminal, rather than wait for a file", async () => {
    const run = await cli(["contacts", "import", "-"], { tty: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("- reads the file from standard input, which is this terminal.");
  });

  it("imports a Google Contacts export with --preset google and names the columns used and ignored", async () => {
    const run = await cli([
      "contacts",
      "import",
      fixture("google-contacts.csv"),
      "--preset",
      "google",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("3 created, 0 updated, 0 skipped, 1 error");
    expect(run.stderr).toContain(
      "Columns used: First Name → first_name, Last Name → last_name, E-mail 1 - Value → email, Phone 1 - Value → phone; ignored: Middle Name,",
    );
    expect((await contacts()).map((c) => c.email).sort()).toEqual([
      "anna.schmidt@example.de",
      "josé@exämple.de",
      "émilie.10@example.com",
    ]);
  });

  it("imports an Outlook export with --map flags; --strict exits 0 when no row was refused", async () => {
    const run = await cli([
      "contacts",
      "import",
      fixture("outlook-contacts.csv"),
      "--map",
      "Mobile Phone=phone",
      "--map",
      "First Name=first_name",
      "--map",
      "E-mail Address=email",
      "--map",
      "Categories=tags",
      "--default-country",
      "GB",
      "--strict",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("3 created");
    expect(run.stderr).toContain("Mobile Phone → phone");
    const oliver = (await contacts()).find((c) => c.phone === "+447911123456");
    expect(oliver).toMatchObject({ first_name: "Oliver", tags: ["VIP", "Customers"] });
  });

  it("says on stderr with --quiet and --json how many rows were refused, where the summary is not shown", async () => {
    const file = tempFile("two.csv", "phone\n+4915112340101\nnot-a-phone\n");
    const quiet = await cli(["contacts", "import", file, "--quiet"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toMatch(/^imp_\w+\n$/);
    expect(quiet.stderr).toMatch(/completed: 1 created, 0 updated, 0 skipped, 1 error\./);
    const json = await cli(["contacts", "import", file, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ error_count: 1 });
    expect(json.stderr).toContain("1 error.");
    // --strict fails the command, whose message says it once.
    const strict = await cli(["contacts", "import", file, "--quiet", "--strict"]);
    expect(strict.code).toBe(6);
    expect(strict.stderr.match(/ 1 error\./g)).toHaveLength(1);
    // Nothing refused, nothing to say.
    const clean = await cli([
      "contacts",
      "import",
      tempFile("one.csv", "phone\n+4915112340102\n"),
      "-q",
    ]);
    expect(clean.stderr).toBe("");
  });

  it("exits 6 with --strict when a row was refused (ambiguous_phone), and 0 with the count without it", async () => {
    const args = [
      "contacts",
      "import",
      fixture("hubspot-contacts.csv"),
      "--preset",
      "hubspot",
      "--default-country",
      "IT",
    ];
    const strict = await cli([...args, "--strict"]);
    expect(strict.code).toBe(6);
    expect(strict.stderr).toContain("2 created, 0 updated, 0 skipped, 1 error");
    expect(strict.stdout).toContain("ambiguous_phone");
    expect(strict.stderr).toContain("--strict: exit code 6 because 1 row was refused");
    const lenient = await cli(args);
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain("0 created, 2 updated, 0 skipped, 1 error");
  });

  it("reads a HubSpot export's numbers from Mobile Phone Number, as its 422 says, keeping the preset's names", async () => {
    const file = tempFile(
      "hubspot-mobile.csv",
      "Record ID,First Name,Last Name,Email,Phone Number,Mobile Phone Number\n" +
        "61,Maria,Rossi,maria@example.it,,+393331234561\n" +
        "62,Luca,Bianchi,luca@example.it,,+393331234562\n",
    );
    const refused = await cli(["contacts", "import", file]);
    expect(refused.code).toBe(6);
    const advice = `(CLI: --preset hubspot --map "Mobile Phone Number=phone")`;
    expect(refused.stderr).toContain(`if the numbers are in 'Mobile Phone Number' instead`);
    expect(refused.stderr).toContain(advice);
    const run = await cli([
      ...["contacts", "import", file, "--preset", "hubspot"],
      ...["--map", "Mobile Phone Number=phone", "--strict"],
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect((await contacts()).map((c) => [c.phone, c.first_name]).sort()).toEqual([
      ["+393331234561", "Maria"],
      ["+393331234562", "Luca"],
    ]);
  });

  it("reads a semicolon file, a Windows-1252 file and a UTF-16 file with the same flags as the service", async () => {
    const semicolon = await cli([
      "contacts",
      "import",
      fixture("semicolon-excel.csv"),
      "--default-country",
      "DE",
    ]);
    expect(semicolon.code, semicolon.stderr).toBe(0);
    expect(semicolon.stderr).toContain("(separator ';', utf-8)");
    const latin = await cli([
      "contacts",
      "import",
      fixture("windows-1252.csv"),
      "--encoding",
      "windows-1252",
    ]);
    expect(latin.code, latin.stderr).toBe(0);
    expect(latin.stderr).toContain("windows-1252");
    const utf16 = await cli(["contacts", "import", fixture("utf16-bom.csv"), "--json"]);
    expect(utf16.code, utf16.stderr).toBe(0);
    expect(JSON.parse(utf16.stdout)).toMatchObject({ encoding: "utf-16le", delimiter: "\t" });
    const names = (await contacts()).map((c) => c.last_name);
    expect(names).toEqual(
      expect.arrayContaining(["Müller", "Bäcker", "Lefèvre", "山田", "Ørsted"]),
    );
  });

  it("dry-runs with the same mapping, separator and encoding, and sends nothing", async () => {
    const google = await cli([
      "contacts",
      "import",
      fixture("google-contacts.csv"),
      "--preset",
      "google",
      "--dry-run",
      "--json",
    ]);
    // Refused rows are counted and exit 0, as the import itself would.
    expect(google.code).toBe(0);
    expect(JSON.parse(google.stdout)).toMatchObject({ rows: 4, valid_rows: 3, error_count: 1 });
    const hubspot = await cli([
      "contacts",
      "import",
      fixture("hubspot-contacts.csv"),
      "--preset",
      "hubspot",
      "--default-country",
      "IT",
      "--dry-run",
      "--strict",
    ]);
    expect(hubspot.code).toBe(6);
    expect(hubspot.stdout + hubspot.stderr).toContain("ambiguous_phone");
    const latin = await cli(["contacts", "import", fixture("windows-1252.csv"), "--dry-run"]);
    expect(latin.code).toBe(2);
    expect(latin.stderr).toContain("--encoding");
    const decoded = await cli([
      "contacts",
      "import",
      fixture("windows-1252.csv"),
      "--dry-run",
      "--encoding",
      "cp1252",
    ]);
    expect(decoded.code, decoded.stderr).toBe(0);
    const semicolon = await cli([
      "contacts",
      "import",
      fixture("semicolon-excel.csv"),
      "--dry-run",
      "--default-country",
      "DE",
      "--json",
    ]);
    expect(JSON.parse(semicolon.stdout)).toMatchObject({ valid_rows: 3, delimiter: ";" });
    const utf16 = await cli([
      "contacts",
      "import",
      fixture("utf16-bom.csv"),
      "--dry-run",
      "--json",
    ]);
    expect(JSON.parse(utf16.stdout)).toMatchObject({ valid_rows: 2, encoding: "utf-16le" });
    expect(await contacts()).toEqual([]);
  });

  it("without a terminal, a Google export without --preset gets the service's 422 naming the preset", async () => {
    const run = await cli(["contacts", "import", fixture("google-contacts.csv")]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("Google Contacts export");
    expect(run.stderr).toContain("--preset google");
  });

  it("at a terminal, shows the layout found and its mapping, and imports once accepted", async () => {
    const prompter = scriptedPrompter({ "Import with this mapping?": true });
    const run = await cli(
      ["contacts", "import", fixture("outlook-contacts.csv"), "--default-country", "GB"],
      {
        tty: true,
        prompter,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("it looks like an Outlook contacts export");
    expect(run.stderr).toContain("Mobile Phone → phone");
    expect(prompter.asked).toEqual(["Import with this mapping?"]);
    expect((await contacts()).length).toBe(3);
  });

  it("at a terminal, proposes a mapping from a file's own column names (Telefon, Vorname, E-Mail) and says it as flags", async () => {
    const file = tempFile(
      "kunden.csv",
      "\uFEFFVorname;Nachname;Telefon;E-Mail;Notiz\nJürgen;Müller;+4915112347003;juergen@example.de;Stammkunde\n",
    );
    const prompter = scriptedPrompter({ "Import with this mapping?": true });
    const run = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("its column names suggest this mapping:");
    expect(run.stderr).toContain("Telefon → phone");
    expect(run.stderr).toContain("Notiz → (ignored)");
    expect(run.stderr).toContain(
      'The same file next time, without questions: --map "Vorname=first_name" --map "Nachname=last_name" --map "Telefon=phone" --map "E-Mail=email" --map "Notiz="',
    );
    expect(await contacts()).toMatchObject([
      { phone: "+4915112347003", first_name: "Jürgen", email: "juergen@example.de" },
    ]);
  });

  it("at a terminal, offers the columns beside phone that look like fields (First Name, Opt-In Status) before sending", async () => {
    const file = tempFile(
      "t9.csv",
      "phone,Opt-In Status,First Name,Notes\n+4915112340101,yes,Anna,VIP\n",
    );
    const prompter = scriptedPrompter({ "Import them as these fields?": true });
    const run = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toEqual(["Import them as these fields?"]);
    expect(run.stderr).toContain("Opt-In Status → opt_in_status");
    expect(run.stderr).toContain("First Name → first_name");
    expect(run.stderr).toContain(
      'The same file next time, without questions: --map "phone=phone" --map "Opt-In Status=opt_in_status" --map "First Name=first_name" --map "Notes="',
    );
    expect(await contacts()).toMatchObject([
      { phone: "+4915112340101", first_name: "Anna", opt_in_status: "opted_in" },
    ]);
  });

  it("without a terminal, imports by the column names alone and says which ignored columns look like fields", async () => {
    const file = tempFile(
      "t9.csv",
      "phone,Opt-In Status,First Name,Notes\n+4915112340101,yes,Anna,VIP\n",
    );
    const run = await cli(["contacts", "import", file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'Ignored columns that look like fields: Opt-In Status → opt_in_status, First Name → first_name. To import them, add --map "Opt-In Status=opt_in_status" --map "First Name=first_name".',
    );
    expect(await contacts()).toMatchObject([
      { phone: "+4915112340101", first_name: null, opt_in_status: "not_set" },
    ]);
    // Named by flags, the columns are the user's choice: nothing more is said.
    const mapped = await cli(["contacts", "import", file, "--map", "First Name=first_name"]);
    expect(mapped.stderr).not.toContain("look like fields");
  });

  it("without a terminal, refuses a file without a phone column with the mapping its column names suggest", async () => {
    const file = tempFile("clients.csv", "Prénom,Nom,Téléphone\nZoé,Lefèvre,+33612345678\n");
    const run = await cli(["contacts", "import", file]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      `its column names suggest the mapping {"Prénom":"first_name","Nom":"last_name","Téléphone":"phone"} (CLI: --map "Prénom=first_name" --map "Nom=last_name" --map "Téléphone=phone")`,
    );
  });

  it("at a terminal, asks which encoding a file that is not UTF-8 is in, showing a line of it in each, then maps and imports it", async () => {
    // Saved by Excel on Windows: é and ß as one Windows-1252 byte each, not UTF-8.
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "kunden-1252.csv");
    writeFileSync(
      file,
      Buffer.from("Telefon;Vorname;Straße\n+4915112340101;René;Hauptstraße 1\n", "latin1"),
    );
    const questions: { message: string; choices: string[] }[] = [];
    const prompter: Prompter = {
      ...scriptedPrompter({ "Import with this mapping?": true }),
      select: async (q) => {
        questions.push({ message: q.message, choices: q.choices.map((c) => c.name) });
        return "windows-1252" as never;
      },
    };
    const run = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(run.code, run.stderr).toBe(0);
    expect(questions).toEqual([
      {
        message: "Which encoding is it in? (a line of it read in each)",
        // The first line holding a byte that is no UTF-8: here the header, with its ß.
        choices: ["windows-1252: Telefon;Vorname;Straße", "iso-8859-1: Telefon;Vorname;Straße"],
      },
    ]);
    expect(run.stderr).toContain(
      'The same file next time, without questions: --encoding windows-1252 --map "Telefon=phone" --map "Vorname=first_name" --map "Straße="',
    );
    expect(await contacts()).toMatchObject([{ phone: "+4915112340101", first_name: "René" }]);
  });

  it("says what was answered as flags after a dry run at a terminal too", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "kunden-1252.csv");
    writeFileSync(file, Buffer.from("phone,first_name\n+4915112340101,René\n", "latin1"));
    const prompter: Prompter = {
      ...scriptedPrompter({}),
      select: async () => "windows-1252" as never,
    };
    const run = await cli(["contacts", "import", file, "--dry-run"], { tty: true, prompter });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "The same file next time, without questions: --encoding windows-1252",
    );
    expect(await contacts()).toEqual([]);
  });

  it("at a terminal, offers UTF-16 for a file without a byte order mark whose letters are NUL-separated", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "unicode.csv");
    // Every letter ASCII: its bytes are "valid UTF-8", NULs between them.
    writeFileSync(file, Buffer.from("phone,first_name\n+4915112340101,Zoe\n", "utf16le"));
    const offered: string[][] = [];
    const prompter: Prompter = {
      ...scriptedPrompter({}),
      select: async (q) => {
        offered.push(q.choices.map((c) => c.name));
        return "utf-16le" as never;
      },
    };
    const run = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(run.code, run.stderr).toBe(0);
    expect(offered[0]?.[0]).toBe("utf-16le: phone,first_name");
    expect(offered[0]?.[1]).toMatch(/^utf-16be: /);
    expect(await contacts()).toMatchObject([{ phone: "+4915112340101", first_name: "Zoe" }]);
  });

  it("without a terminal, a dry run and the import say a file of NUL-separated letters is UTF-16 to name", async () => {
    for (const name of ["Zoe", "Zoë"]) {
      const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "unicode.csv");
      writeFileSync(file, Buffer.from(`phone,first_name\n+4915112340101,${name}\n`, "utf16le"));
      for (const dry of [["--dry-run"], []]) {
        const run = await cli(["contacts", "import", file, ...dry]);
        expect(run.code, `${name} ${dry}`).toBe(dry.length > 0 ? 2 : 6);
        expect(run.stderr, `${name} ${dry}`).toContain(
          "UTF-16 text without a byte order mark; name its encoding with",
        );
      }
    }
    expect(await contacts()).toEqual([]);
  });

  it("at a terminal, asks nothing about a file whose UTF-8 byte order mark decides its encoding", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "marked.csv");
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from("phone,first_name\n+4915112340101,René\n", "latin1"),
      ]),
    );
    const prompter = scriptedPrompter({});
    const run = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(prompter.asked).toEqual([]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain("is not UTF-8 text");
  });

  it("without a terminal, refuses a file that is not UTF-8, saying to name its encoding", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "kunden-1252.csv");
    writeFileSync(file, Buffer.from("phone,first_name\n+4915112340101,René\n", "latin1"));
    const run = await cli(["contacts", "import", file]);
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "is not UTF-8 text: byte 0xE9 (byte 36 of the file) is no UTF-8; name its encoding",
    );
    expect(await contacts()).toEqual([]);
  });

  it("names the damaged byte of a UTF-8 file instead of suggesting another encoding, and refuses the file sent as windows-1252", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-csv-")), "mostly-utf8.csv");
    const rows = ["phone,first_name,last_name"];
    for (let i = 10; i < 30; i++) rows.push(`+49151123401${i},Jürgen,Müller`);
    const text = Buffer.from(`${rows.join("\n")}\n`, "utf8");
    // One ü of the last row saved as a single windows-1252 byte.
    const damaged = Buffer.concat([
      text.subarray(0, text.length - 7),
      Buffer.from([0xfc]),
      text.subarray(text.length - 5),
    ]);
    writeFileSync(file, damaged);
    const plain = await cli(["contacts", "import", file]);
    expect(plain.code).toBe(6);
    expect(plain.stderr).toContain(
      `byte 0xFC (byte ${damaged.length - 5} of the file) is no UTF-8, though its other letters are (such as 'ü'): that byte looks damaged`,
    );
    // At a terminal, no encoding is offered for it: it has one, and a damaged byte.
    const prompter = scriptedPrompter({});
    const asked = await cli(["contacts", "import", file], { tty: true, prompter });
    expect(prompter.asked).toEqual([]);
    expect(asked.stderr).toContain("that byte looks damaged");
    const named = await cli(["contacts", "import", file, "--encoding", "windows-1252"]);
    expect(named.code).toBe(6);
    expect(named.stderr).toContain(
      "is not windows-1252 text: it reads as UTF-8: 39 of its characters, such as 'ü', are written as UTF-8, which windows-1252 would store garbled (as 'Ã¼')",
    );
    expect(await contacts()).toEqual([]);
  });

  it("at a terminal, lets each column be edited when the proposal is declined", async () => {
    const asked: string[] = [];
    const prompter: Prompter = {
      ...scriptedPrompter({}),
      confirm: async () => false,
      input: async (q) => {
        asked.push(q.message);
        if (q.message.includes("'Phone 1 - Value'")) return "phone";
        if (q.message.includes("'Labels'")) return "custom.labels";
        if (q.message.includes("'E-mail 1 - Value'")) return "";
        return q.default ?? "";
      },
    };
    const run = await cli(["contacts", "import", fixture("google-contacts.csv")], {
      tty: true,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(asked.length).toBe(32);
    const anna = (await contacts()).find((c) => c.first_name === "Anna");
    expect(anna).toMatchObject({
      email: null,
      custom_fields: { labels: "* myContacts ::: Kunden" },
    });
  });

  it("leaves the previous --output file as it was when an export fails (last night's backup survives a 404)", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "reseller-export-")), "backup.csv");
    writeFileSync(out, "phone\n+4915112345678\n");
    const failed = await cli(["contacts", "export", "--output", out], { workspace: "ws_nope" });
    expect(failed.code).toBe(4);
    expect(readFileSync(out, "utf8")).toBe("phone\n+4915112345678\n");
  });

  it("round-trips hostile names through export and import; a +49… phone stays a phone", async () => {
    const hostile = tempFile(
      "hostile.csv",
      [
        "phone,first_name,last_name,email,custom.note",
        `+4915112345678,"=cmd|' /C calc'!A0",@SUM(A1),anna@example.com,+1+2`,
        `+4915112345679,-2+3,"	tab",,'=already quoted`,
        "+4915112345680,Plain,Name,,-42",
      ].join("\n"),
    );
    const first = await cli(["contacts", "import", hostile]);
    expect(first.code, first.stderr).toBe(0);
    const out = join(mkdtempSync(join(tmpdir(), "reseller-export-")), "export.csv");
    const exported = await cli(["contacts", "export", "--output", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text).toContain(",'=cmd|' /C calc'!A0,'@SUM(A1),");
    expect(text).toContain("'@SUM(A1)");
    expect(text).toContain("'-2+3");
    expect(text).toContain(",'=already quoted");
    expect(text).toContain("+4915112345678,");
    expect(text).not.toContain("'+49");
    expect(text).toContain(",-42");

    const other = await t.createWorkspace({ name: "Copy" });
    const again = await cli(["contacts", "import", out], { workspace: other });
    expect(again.code, again.stderr).toBe(0);
    const strip = (list: Awaited<ReturnType<typeof contacts>>) =>
      list
        .map(({ phone, first_name, last_name, email, custom_fields }) => ({
          phone,
          first_name,
          last_name,
          email,
          custom_fields,
        }))
        .sort((a, b) => a.phone.localeCompare(b.phone));
    const original = strip(await contacts());
    expect(strip(await contacts(other))).toEqual(original);
    expect(original[0]).toMatchObject({
      first_name: "=cmd|' /C calc'!A0",
      last_name: "@SUM(A1)",
      custom_fields: { note: "+1+2" },
    });

    const listed = await cli(["contacts", "list", "--csv"]);
    expect(listed.stdout).toContain("'=cmd|' /C calc'!A0");
    expect(listed.stdout).not.toMatch(/(^|,)=cmd/m);
  });

  it("round-trips values that start with a tab or a carriage return through export and import", async () => {
    const created = await t.request("POST", `/api/v1/workspaces/${ws}/contacts`, {
      body: {
        phone: "+4915112345690",
        custom_fields: { tab: "\tTabbed", cr: "\rCarriage" },
      },
    });
    expect(created.statusCode).toBe(201);
    const out = join(mkdtempSync(join(tmpdir(), "reseller-export-")), "export.csv");
    const exported = await cli(["contacts", "export", "--output", out]);
    expect(exported.code, exported.stderr).toBe(0);
    const other = await t.createWorkspace({ name: "Copy" });
    const again = await cli(["contacts", "import", out], { workspace: other });
    expect(again.code, again.stderr).toBe(0);
    const [copy] = await contacts(other);
    expect(copy?.custom_fields).toEqual({ tab: "\tTabbed", cr: "\rCarriage" });
  });
});
