import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anna, envelope, ws } from "../fixtures/contacts.js";
import { tempConfigDir } from "../helpers/cli.js";
import { binPath, reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

/** Whether the `sqlite3` shell is installed (Debian's sqlite3 package). */
const sqliteShell = (() => {
  try {
    execFileSync("sqlite3", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

async function api(service: ServedService, method: string, path: string, body?: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data: Record<string, unknown> & { id: string } };
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function createWorkspace(service: ServedService, name: string): Promise<string> {
  return (
    await api(service, "POST", "/api/v1/workspaces", {
      name,
      contact_email: "owner@example.test",
      send_invitation: false,
    })
  ).id;
}

interface ImportRecord {
  id: string;
  status: string;
  total_rows: number;
  processed_rows: number;
  created: number;
  updated: number;
  skipped: number;
  error_count: number;
  errors: { row: number; phone: string | null; field: string; message: string }[];
}

/** Polls an import (bounded) until `done` says so. */
async function waitFor(
  service: ServedService,
  workspace: string,
  importId: string,
  done: (record: ImportRecord) => boolean,
  seconds = 120,
): Promise<ImportRecord> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const record = (await api(
      service,
      "GET",
      `/api/v1/workspaces/${workspace}/contacts/imports/${importId}`,
    )) as unknown as ImportRecord;
    if (done(record)) return record;
    if (Date.now() > until) throw new Error(`import ${importId} is still ${record.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every contact of a workspace, walked by cursor, without what differs from run to run. */
async function everyContact(service: ServedService, workspace: string) {
  const contacts: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const response = await fetch(
      `${service.url}/api/v1/workspaces/${workspace}/contacts?per_page=100${cursor ? `&cursor=${cursor}` : ""}`,
      { headers: { authorization: `Bearer ${service.token}` } },
    );
    const body = (await response.json()) as {
      data: Record<string, unknown>[];
      meta: { pagination: { next_cursor: string | null } };
    };
    // Ids, the source (`import:<id>`) and times differ between two runs; everything else may not.
    for (const contact of body.data) {
      const { id, opt_in_source, created_at, updated_at, opted_in_at, opted_out_at, ...rest } =
        contact;
      contacts.push({ ...rest, consent_times: [opted_in_at !== null, opted_out_at !== null] });
    }
    cursor = body.meta.pagination.next_cursor;
  } while (cursor);
  return contacts.sort((a, b) => String(a.phone).localeCompare(String(b.phone)));
}

/** A CSV with valid rows, some bad ones and some phones twice. */
function bigCsv(rows: number): string {
  const lines = ["phone,first_name,last_name,email,tags,opt_in_status,custom.city"];
  for (let i = 0; i < rows; i++) {
    const n = i % 97 === 0 ? Math.max(0, i - 50) : i; // now and then a phone seen earlier
    const phone = i % 211 === 0 ? `0151${i}` : `+49151${String(10_000_000 + n)}`;
    const status = ["opted_in", "not_set", "opted_out", ""][i % 4];
    lines.push(
      `${phone},Name${i},Family${i % 50},user${i}@example.com,"t${i % 7},all",${status},City${i % 9}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

describe("contacts with the reseller binary against a real local service", () => {
  let service: ServedService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startServe();
    env = { ...serviceEnv(service), RESELLER_CONFIG_DIR: tempConfigDir() };
  });
  afterAll(async () => {
    await service.stop();
  });

  it("exports for Excel with --bom, and that file imports again with its accents", async () => {
    const first = await createWorkspace(service, "Excel out");
    const source = join(service.dir, "accents.csv");
    writeFileSync(source, "phone,first_name,last_name\n+4915112340777,Zoë,Ørsted\n");
    await reseller(["contacts", "import", source, "-w", first], { env });
    const exported = join(service.dir, "for-excel.csv");
    const run = await reseller(["contacts", "export", "-w", first, "--bom", "--output", exported], {
      env,
    });
    expect(run.exitCode).toBe(0);
    expect(readFileSync(exported).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const second = await createWorkspace(service, "Excel in");
    const again = await reseller(["contacts", "import", exported, "-w", second, "--json"], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 1, error_count: 0 });
    const [contact] = await everyContact(service, second);
    expect(contact).toMatchObject({ first_name: "Zoë", last_name: "Ørsted" });
  });

  it("imports a CSV, exports it, and the export imports into another workspace unchanged", async () => {
    const first = await createWorkspace(service, "First");
    const csv =
      "\ufeffPhone,First_Name,Last_Name,Email,Tags,Opt_In_Status,custom.city,custom.Birthday,notes\r\n" +
      '+4915112345678,Anna,"Schmidt, Jr.",anna@example.com,"vip;newsletter",opted_in,Berlin,1990-01-01,x\r\n' +
      "+4915223456789,Ben,,,,,Hamburg,,\r\n" +
      '+14155550123,Carl,"O\'Brien\nthe second",carl@example.com,vip,opted_out,,,\r\n' +
      "bad,Nobody,,,,,,,\r\n";
    const source = join(service.dir, "contacts.csv");
    writeFileSync(source, csv);
    const imported = await reseller(["contacts", "import", source, "-w", first, "--json"], { env });
    expect(imported.exitCode).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      status: "completed",
      created: 3,
      error_count: 1,
      ignored_columns: ["notes"],
    });

    const upsert = await reseller(
      [
        "contacts",
        "upsert",
        "-w",
        first,
        "--phone",
        "+4915223456789",
        "--tag",
        "walk-in",
        "--field",
        "shoe=44",
      ],
      { env },
    );
    expect(upsert.exitCode).toBe(0);
    expect(upsert.stderr).toContain("Updated contact");

    const exported = join(service.dir, "export.csv");
    const exportRun = await reseller(["contacts", "export", "-w", first, "--output", exported], {
      env,
    });
    expect(exportRun.exitCode).toBe(0);
    expect(exportRun.stderr).toContain("Exported 3 contacts");
    const firstExport = readFileSync(exported, "utf8");
    expect(firstExport.split("\n")[0]).toBe(
      "phone,first_name,last_name,email,tags,opt_in_status,opt_in_source,opted_in_at,opted_out_at,custom.Birthday,custom.city,custom.shoe",
    );

    const second = await createWorkspace(service, "Second");
    const again = await reseller(["contacts", "import", exported, "-w", second, "--json"], { env });
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: "completed",
      created: 3,
      error_count: 0,
    });
    const secondExport = join(service.dir, "export-2.csv");
    await reseller(["contacts", "export", "-w", second, "--output", secondExport], { env });
    expect(readFileSync(secondExport, "utf8")).toBe(firstExport);

    const search = await reseller(
      ["contacts", "list", "-w", second, "--search", "o'brien", "--json"],
      { env },
    );
    expect(JSON.parse(search.stdout).map((c: { phone: string }) => c.phone)).toEqual([
      "+14155550123",
    ]);
    const tags = await reseller(["tags", "list", "-w", second], { env });
    expect(tags.stdout).toContain("vip\t2\t");
  });

  it("shows at once what changed since a page was last read: an import, an upsert, an opt-out", async () => {
    const workspace = await createWorkspace(service, "Polled");
    const firstPage = async () => {
      const response = await fetch(`${service.url}/api/v1/workspaces/${workspace}/contacts`, {
        headers: { authorization: `Bearer ${service.token}` },
      });
      const body = (await response.json()) as {
        data: { phone: string; opt_in_status: string }[];
        meta: { pagination: { total: number } };
      };
      return { statuses: body.data.map((c) => `${c.phone} ${c.opt_in_status}`), ...body.meta };
    };
    // Read twice: the second answer is the page the service keeps while nothing changes.
    expect(await firstPage()).toEqual(await firstPage());
    expect((await firstPage()).pagination.total).toBe(0);

    const file = join(service.dir, "polled.csv");
    writeFileSync(file, "phone,opt_in_status\n+4915112345601,opted_in\n+4915112345602,opted_in\n");
    const imported = await reseller(["contacts", "import", file, "-w", workspace, "--json"], {
      env,
    });
    expect(JSON.parse(imported.stdout)).toMatchObject({ status: "completed", created: 2 });
    expect(await firstPage()).toMatchObject({
      statuses: ["+4915112345602 opted_in", "+4915112345601 opted_in"],
      pagination: { total: 2 },
    });

    await api(service, "POST", `/api/v1/workspaces/${workspace}/contacts`, {
      phone: "+4915112345603",
    });
    expect((await firstPage()).pagination.total).toBe(3);

    const [newest] = (await api(
      service,
      "GET",
      `/api/v1/workspaces/${workspace}/contacts?search=4915112345601`,
    )) as unknown as { id: string }[];
    await api(service, "PATCH", `/api/v1/workspaces/${workspace}/contacts/${newest?.id}`, {
      opt_in_status: "opted_out",
    });
    expect((await firstPage()).statuses).toContain("+4915112345601 opted_out");
  });

  // The documented backup tool; better-sqlite3 as a reader never deleted the log in the same case.
  it.skipIf(!sqliteShell)(
    "keeps its database log through an import on the import's thread: `sqlite3` reading the file afterwards sees every later write",
    async () => {
      const workspace = await createWorkspace(service, "Large import");
      // Over 1 MB, so the import runs on its own thread, with its own connection to the file.
      const rows = Array.from(
        { length: 36_000 },
        (_, i) => `+49151${String(10_000_000 + i)},Somebody called ${i}`,
      );
      const file = join(service.dir, "large.csv");
      writeFileSync(file, `phone,first_name\n${rows.join("\n")}\n`);
      const imported = await reseller(["contacts", "import", file, "-w", workspace, "--json"], {
        env,
      });
      expect(JSON.parse(imported.stdout)).toMatchObject({ status: "completed", created: 36_000 });
      // Another process reads the file and closes it (`sqlite3 reseller.db 'select …'`, `.backup`).
      const count = () =>
        execFileSync("sqlite3", [
          service.dbFile,
          `select count(*) from contacts where workspace_id = '${workspace}'`,
        ])
          .toString()
          .trim();
      expect(count()).toBe("36000");
      expect(existsSync(`${service.dbFile}-wal`)).toBe(true);
      await api(service, "POST", `/api/v1/workspaces/${workspace}/contacts`, {
        phone: "+4915112345699",
      });
      expect(count()).toBe("36001");
    },
  );

  it("imports a file of over 1 MB whose first 7,000 rows are refused, keeping every refused row", async () => {
    const workspace = await createWorkspace(service, "Many refused rows");
    // Over 1 MB, so the import runs on its own thread, in transactions of up to 25,000 rows.
    const rows = Array.from({ length: 30_000 }, (_, i) =>
      i < 7000
        ? `not-a-phone,Refused ${i}`
        : `+49152${String(10_000_000 + i)},Somebody called ${i} from the list`,
    );
    const file = join(service.dir, "refused.csv");
    writeFileSync(file, `phone,first_name\n${rows.join("\n")}\n`);
    const errorsFile = join(service.dir, "refused-rows.csv");
    const imported = await reseller(
      ["contacts", "import", file, "-w", workspace, "--errors", errorsFile, "--json"],
      { env },
    );
    const record = JSON.parse(imported.stdout);
    expect(record).toMatchObject({ status: "completed", created: 23_000, error_count: 7000 });
    expect(record.errors).toHaveLength(1000);
    const refused = readFileSync(errorsFile, "utf8").trim().split("\n");
    expect(refused).toHaveLength(1 + 7000);
    expect(refused.at(-1)).toMatch(/^7000,/);
  });

  it("imports from a pipe: `-`, `/dev/stdin` or a shell's `<(…)`", async () => {
    const workspace = await createWorkspace(service, "Piped import");
    const rows = (n: number) =>
      `phone,first_name\n+49151123400${n}1,Piped\n+49151123400${n}2,Twice\n`;
    const cli = `node ${binPath} contacts import`;
    for (const [n, command, from] of [
      [1, `printf '${rows(1)}' | ${cli} - -w ${workspace}`, "standard input"],
      [2, `printf '${rows(2)}' | ${cli} /dev/stdin -w ${workspace}`, "/dev/stdin"],
      [3, `${cli} <(printf '${rows(3)}') -w ${workspace}`, "/dev/fd/"],
    ] as const) {
      const imported = await execa("bash", ["-c", command], {
        env: { ...env, NODE_EXTRA_CA_CERTS: "", CI: "true" },
        stdin: "ignore",
        reject: false,
      });
      expect(imported.exitCode, `${n}: ${imported.stderr}`).toBe(0);
      expect(imported.stderr).toContain(`queued: 2 rows from ${from}`);
      expect(imported.stderr).toContain("2 created");
    }
  });

  it("deletes its copy of standard input when Ctrl-C stops it mid-copy", async () => {
    const own = mkdtempSync(join(tmpdir(), "reseller-spool-e2e-"));
    const child = execa("node", [binPath, "contacts", "import", "-", "-w", "ws_unused"], {
      env: { ...env, NODE_EXTRA_CA_CERTS: "", CI: "true", TMPDIR: own },
      stdin: "pipe",
      reject: false,
    });
    child.stdin?.write("phone,first_name\n+4915112340001,Copied\n");
    // The copy exists once the CLI reads its input; the pipe stays open, so it goes on copying.
    const until = Date.now() + 10_000;
    while (!readdirSync(own).some((name) => name.startsWith("reseller-input-"))) {
      if (Date.now() > until) throw new Error("the CLI made no copy of its input");
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGINT");
    const ended = await child;
    expect(ended.signal).toBe("SIGINT");
    expect(readdirSync(own)).toEqual([]);
  });

  it.each([
    ["Ctrl-C", "SIGINT"],
    ["a closed terminal", "SIGHUP"],
  ] as const)("deletes the pages it holds when %s stops an export mid-way", async (_, signal) => {
    const own = mkdtempSync(join(tmpdir(), "reseller-export-e2e-"));
    // A service that answers the first page and never the second, so the export waits mid-way.
    const stalled = createServer((request, response) => {
      if (request.url?.includes("cursor=")) return;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(envelope([anna], { next_cursor: "c2" })));
    });
    await new Promise<void>((done) => stalled.listen(0, "127.0.0.1", done));
    const { port } = stalled.address() as AddressInfo;
    try {
      const child = execa("node", [binPath, "contacts", "export", "-w", ws], {
        env: {
          ...env,
          RESELLER_BASE_URL: `http://127.0.0.1:${port}`,
          RESELLER_TOKEN: service.token,
          NODE_EXTRA_CA_CERTS: "",
          CI: "true",
          TMPDIR: own,
        },
        reject: false,
      });
      const holding = () =>
        readdirSync(own).some((name) => {
          const pages = join(own, name, "contacts.ndjson");
          return existsSync(pages) && readFileSync(pages, "utf8").includes(anna.phone);
        });
      const until = Date.now() + 10_000;
      while (!holding()) {
        if (Date.now() > until) throw new Error("the CLI held no page of the export");
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill(signal);
      const ended = await child;
      // Ended by the signal itself, as it would have without a folder to delete.
      expect(ended.signal).toBe(signal);
      expect(readdirSync(own)).toEqual([]);
    } finally {
      stalled.closeAllConnections();
      stalled.close();
    }
  });

  it("checks a file with --dry-run without sending it, exiting as the import would", async () => {
    const file = join(service.dir, "dry.csv");
    writeFileSync(file, "phone,email\n+4915112345678,ok@example.com\n+4915112345679,nope\n");
    const run = await reseller(["contacts", "import", file, "--dry-run", "-w", "ws_unused"], {
      env,
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("Dry run: 1 of 2 rows would be refused");
    const strict = await reseller(
      ["contacts", "import", file, "--dry-run", "--strict", "-w", "ws_unused"],
      { env },
    );
    expect(strict.exitCode).toBe(6);
  });

  it("resumes an import after the service is killed mid-import and ends as an uninterrupted run", async () => {
    const rows = 30_000;
    const csv = Buffer.from(bigCsv(rows)).toString("base64");
    let served = await startServe();
    try {
      const crashed = await createWorkspace(served, "Crashed");
      const started = await api(served, "POST", `/api/v1/workspaces/${crashed}/contacts/import`, {
        csv,
      });
      const midway = await waitFor(served, crashed, started.id, (r) => r.processed_rows > 0);
      expect(midway.status).toBe("processing");
      expect(midway.processed_rows).toBeLessThan(rows);
      served.process.kill("SIGKILL");
      await served.process;

      served = await startServe({ dbFile: served.dbFile, token: served.token });
      const resumed = await waitFor(served, crashed, started.id, (r) => r.status === "completed");

      const reference = await createWorkspace(served, "Reference");
      const second = await api(served, "POST", `/api/v1/workspaces/${reference}/contacts/import`, {
        csv,
      });
      const uninterrupted = await waitFor(
        served,
        reference,
        second.id,
        (r) => r.status === "completed",
      );

      const counts = (r: ImportRecord) => ({
        total_rows: r.total_rows,
        processed_rows: r.processed_rows,
        created: r.created,
        updated: r.updated,
        skipped: r.skipped,
        error_count: r.error_count,
        errors: r.errors,
      });
      expect(counts(resumed)).toEqual(counts(uninterrupted));
      expect(resumed.error_count).toBeGreaterThan(0);
      expect(resumed.updated).toBeGreaterThan(0);
      const [a, b] = await Promise.all([
        everyContact(served, crashed),
        everyContact(served, reference),
      ]);
      expect(a.length).toBe(resumed.created);
      expect(a).toEqual(b);
    } finally {
      await served.stop();
    }
  }, 240_000);
});
