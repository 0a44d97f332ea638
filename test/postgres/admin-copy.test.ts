import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopes } from "../../src/contract/scopes.js";
import { bootstrap } from "../../src/service/bootstrap.js";
import { openDatabase } from "../../src/service/db/database.js";
import { systemClock } from "../../src/service/domain/clock.js";
import { runCli, tempConfigDir } from "../helpers/cli.js";
import { createTestDatabase } from "../helpers/postgres-databases.js";
import { reseller, type ServedService, startServe } from "../helpers/serve.js";

/**
 * `reseller admin copy` end to end, as an operator moves a deployment: a SQLite service filled
 * through its API (workspaces, imported and tagged contacts, a template, a sent campaign, tokens),
 * stopped, copied with the built binary into an empty PostgreSQL database, and served from there.
 */

interface Answer {
  status: number;
  body: { data?: unknown; meta?: unknown; error_code?: string } | null;
}

async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function ok(url: string, token: string, method: string, path: string, body?: unknown) {
  const answer = await call(url, token, method, path, body);
  if (answer.status >= 300) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body?.data as Record<string, unknown> & { id: string };
}

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const upload = Buffer.from([0, 1, 2, 255, 0, 80, 75, 3, 4]);

const people = [
  ["Anna", "Schmidt", "anna.schmidt@example.test", "vip|new"],
  ["Anna-Lena", "Ørsted", "al@orsted.test", "vip"],
  ["Bernd", "Müller", "", "new"],
  ["Łukasz", "Nowak", "lukasz@nowak.test", ""],
  ["Chloé", "Dubois", "chloe.dubois@example.test", "vip"],
  ["Dana", "Schmidt", "dana@example.test", "staff"],
];

/** Enough imported rows that contacts and their tag links are copied in several batches. */
const fillers = 2_400;

/** The CSV of the first workspace's import: named people, filler rows, and one bad phone. */
function importCsv(): string {
  const lines = ["phone,first_name,last_name,email,tags,opt_in_status"];
  people.forEach(([first, last, email, tags], i) => {
    lines.push(
      `+49151${String(30_000_000 + i * 17).padStart(8, "0")},${first},${last},${email},${tags},opted_in`,
    );
  });
  for (let i = 0; i < fillers; i++) {
    lines.push(
      `+49152${String(40_000_000 + i * 13).padStart(8, "0")},Filler${i},Person,,${i % 3 === 0 ? "bulk" : ""},opted_in`,
    );
  }
  lines.push("not a phone,Broken,Row,,,opted_in");
  return lines.join("\n");
}

/** The reads whose answers must be the same after the move, by name. */
function reads(ws: string, other: string): Record<string, string> {
  const base = `/api/v1/workspaces/${ws}`;
  return {
    workspaces: "/api/v1/workspaces",
    plans: "/api/v1/plans",
    "first page": `${base}/contacts?per_page=10`,
    "third page": `${base}/contacts?per_page=10&page=3`,
    "search name": `${base}/contacts?search=anna`,
    "search folded": `${base}/contacts?search=orsted`,
    "search joined": `${base}/contacts?search=anna-lena`,
    "search email": `${base}/contacts?search=${encodeURIComponent("anna.schmidt@ex")}`,
    "search phone": `${base}/contacts?search=${encodeURIComponent("+4915130")}`,
    "search last digits": `${base}/contacts?search=30000017`,
    "search national": `${base}/contacts?search=${encodeURIComponent("0151 3000")}`,
    "search two words": `${base}/contacts?search=${encodeURIComponent("schmidt dana")}`,
    "search nothing": `${base}/contacts?search=zzzz`,
    "tag vip": `${base}/contacts?tag=vip`,
    "tag bulk": `${base}/contacts?tag=bulk&per_page=5`,
    "tag and search": `${base}/contacts?tag=vip&search=anna`,
    "opted out": `${base}/contacts?opt_in_status=opted_out`,
    tags: `${base}/tags`,
    imports: `${base}/contacts/imports`,
    templates: `${base}/templates`,
    campaigns: `${base}/campaigns`,
    "other workspace": `/api/v1/workspaces/${other}/contacts`,
    "other workspace search": `/api/v1/workspaces/${other}/contacts?search=anna`,
  };
}

async function readAll(url: string, token: string, paths: Record<string, string>) {
  const answers: Record<string, Answer> = {};
  for (const [name, path] of Object.entries(paths)) {
    const answer = await call(url, token, "GET", path);
    // Links name the address the service listens on, which differs between the two.
    answers[name] = JSON.parse(JSON.stringify(answer).replaceAll(url, "<service>"));
  }
  return answers;
}

async function countRows(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const counts: Record<string, number> = {};
    for (const { table_name } of tables.rows) {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${table_name}"`,
      );
      counts[table_name] = Number(rows[0]?.n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

describe("moving a SQLite deployment to PostgreSQL with admin copy", () => {
  let source: ServedService;
  let copy: ServedService | undefined;
  let target: Awaited<ReturnType<typeof createTestDatabase>>;
  let token: string;
  let revoked: string;
  let paths: Record<string, string>;
  let before: Record<string, Answer>;
  let workspaceId: string;
  let copied: { exitCode?: number; stdout: string; stderr: string };

  beforeAll(async () => {
    target = await createTestDatabase({ empty: true });
    source = await startServe({ args: ["--review-delay", "0", "--throughput", "0"] });
    const { url } = source;
    const admin = source.token;
    // A token of its own (not the bootstrap one, which any new service would accept).
    token = (await ok(url, admin, "POST", "/api/v1/tokens", { name: "ops", scopes: [...scopes] }))
      .token as string;
    const doomed = await ok(url, admin, "POST", "/api/v1/tokens", {
      name: "old",
      scopes: ["plans:read"],
    });
    revoked = doomed.token as string;
    await ok(url, admin, "DELETE", `/api/v1/tokens/${doomed.id}`);

    const ws = await ok(url, token, "POST", "/api/v1/workspaces", {
      name: "Acme",
      contact_email: "owner@acme.test",
      plan_id: "4",
      send_invitation: false,
    });
    workspaceId = ws.id;
    const other = await ok(url, token, "POST", "/api/v1/workspaces", {
      name: "Other",
      contact_email: "owner@other.test",
      plan_id: "4",
      send_invitation: false,
    });
    const base = `/api/v1/workspaces/${ws.id}`;
    const imported = await ok(url, token, "POST", `${base}/contacts/import`, {
      csv: Buffer.from(importCsv()).toString("base64"),
    });
    await until(async () => {
      const state = await ok(url, token, "GET", `${base}/contacts/imports/${imported.id}`);
      return state.status === "completed";
    }, "the import");
    const late = await ok(url, token, "POST", `${base}/contacts`, {
      phone: "+4915199990001",
      first_name: "Zoë",
      last_name: "Late",
      tags: ["vip", "late"],
      opt_in_status: "opted_in",
    });
    await ok(url, token, "PATCH", `${base}/contacts/${late.id}`, { opt_in_status: "opted_out" });
    // The same phone and name in another workspace: searches must stay in their workspace.
    await ok(url, token, "POST", `/api/v1/workspaces/${other.id}/contacts`, {
      phone: "+4915130000000",
      first_name: "Anna",
      last_name: "Elsewhere",
      tags: ["vip"],
      opt_in_status: "opted_in",
    });

    const channel = await ok(url, token, "POST", `${base}/channels`, {
      phone: "+4915112340000",
      name: "Main",
    });
    const template = await ok(url, token, "POST", `${base}/templates`, {
      name: "spring_news",
      category: "marketing",
      language: "en",
      components: [
        { type: "BODY", text: "Hi {{1}}, spring is here.", example: { body_text: [["Ada"]] } },
      ],
    });
    await until(
      async () =>
        (await ok(url, token, "GET", `${base}/templates/${template.id}`)).status === "approved",
      "the template's approval",
    );
    const campaign = await ok(url, token, "POST", `${base}/campaigns`, {
      name: "Spring",
      channel_id: channel.id,
      template_name: "spring_news",
      template_language: "en",
      audience: { tags: ["vip"] },
      variable_mapping: { "1": "first_name" },
    });
    await ok(url, token, "POST", `${base}/campaigns/${campaign.id}/launch`);
    await until(
      async () =>
        (await ok(url, token, "GET", `${base}/campaigns/${campaign.id}`)).status === "completed",
      "the campaign",
    );

    paths = reads(ws.id, other.id);
    before = await readAll(url, token, paths);
    // The operator stops the service before moving its database.
    expect((await source.stop()).exitCode).toBe(0);
    // An upload still waiting to be imported: binary data, NUL bytes included, must arrive as is.
    const file = new BetterSqlite3(source.dbFile);
    file
      .prepare(
        "INSERT INTO contact_import_uploads (upload_id, seq, data, created_at) VALUES (?, ?, ?, ?)",
      )
      .run("up_pending", 0, upload, "2026-11-23T10:00:00.000Z");
    file.close();

    const run = await reseller(
      ["admin", "copy", "--from", source.dbFile, "--to", target.url, "--json"],
      { env: { RESELLER_CONFIG_DIR: tempConfigDir() } },
    );
    copied = { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr) };
  }, 120_000);

  afterAll(async () => {
    await copy?.stop();
    await target?.drop();
    if (source) rmSync(source.dir, { recursive: true, force: true });
  });

  it("copies every table and reports matching counts on both sides", async () => {
    expect(copied.exitCode, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout) as {
      copied: boolean;
      tables: { table: string; source: number; target: number; matches: boolean }[];
      sequences: { table: string; column: string; value: number | null }[];
    };
    expect(report.copied).toBe(true);
    const byTable = Object.fromEntries(report.tables.map((t) => [t.table, t]));
    for (const table of [
      "resellers",
      "tokens",
      "plans",
      "workspaces",
      "contacts",
      "contact_tags",
      "contact_tag_links",
      "contact_counts",
      "contact_imports",
      "contact_import_errors",
      "templates",
      "channels",
      "campaigns",
      "campaign_recipients",
      "sandbox_messages",
      "jobs",
      "events",
    ]) {
      expect(byTable[table]?.source, table).toBeGreaterThan(0);
    }
    expect(report.tables.every((t) => t.matches && t.source === t.target)).toBe(true);
    expect(report.tables.map((t) => t.table)).not.toContain("contacts_fts");
    expect(byTable.contact_import_uploads?.target).toBe(1);
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    const blob = await client.query<{ data: Buffer }>("SELECT data FROM contact_import_uploads");
    await client.end();
    expect(blob.rows[0]?.data.equals(upload)).toBe(true);
    expect(byTable.contacts?.source).toBe(people.length + fillers + 2);
    // Each id sequence continues after the highest copied id.
    const sequence = (table: string) => report.sequences.find((s) => s.table === table)?.value;
    expect(sequence("contacts")).toBe(people.length + fillers + 2);
    expect(sequence("plans")).toBeGreaterThan(0);
    expect(sequence("contact_tags")).toBeGreaterThanOrEqual(5);
  });

  it("serves the copy: the old token works, the revoked one stays revoked, and every read answers the same", async () => {
    copy = await startServe({ database: target.url, args: ["--review-delay", "0"] });
    expect((await call(copy.url, token, "GET", "/api/v1/tokens/current")).status).toBe(200);
    expect((await call(copy.url, revoked, "GET", "/api/v1/plans")).status).toBe(401);
    const after = await readAll(copy.url, token, paths);
    for (const name of Object.keys(paths)) {
      expect(after[name]?.status, name).toBe(before[name]?.status);
      expect(after[name]?.body, name).toEqual(before[name]?.body);
    }
    // The searches found what they should (not merely nothing on both sides).
    const total = (name: string) =>
      (before[name]?.body?.data as unknown[] | undefined)?.length ?? 0;
    expect(total("search name")).toBe(2);
    expect(total("search folded")).toBe(1);
    expect(total("tag vip")).toBe(4);
    expect(total("other workspace search")).toBe(1);
  });

  it("keeps writing on the copy with new ids after the copied ones", async () => {
    if (!copy) throw new Error("the copy is not served");
    const base = `/api/v1/workspaces/${workspaceId}`;
    const added = await ok(copy.url, token, "POST", `${base}/contacts`, {
      phone: "+4915199990002",
      first_name: "Newcomer",
      tags: ["fresh"],
      opt_in_status: "opted_in",
    });
    const found = await ok(copy.url, token, "GET", `${base}/contacts?search=newcomer`);
    expect((found as unknown as { id: string }[]).map((c) => c.id)).toEqual([added.id]);
    const tagged = await ok(copy.url, token, "GET", `${base}/contacts?tag=fresh`);
    expect((tagged as unknown as { id: string }[]).map((c) => c.id)).toEqual([added.id]);
  });

  it("refuses a second copy into the now non-empty database and changes nothing", async () => {
    const counts = await countRows(target.url);
    const again = await reseller(
      ["admin", "copy", "--from", source.dbFile, "--to", target.url, "--json"],
      { env: { RESELLER_CONFIG_DIR: tempConfigDir() } },
    );
    expect(again.exitCode).toBe(5);
    expect(String(again.stderr)).toMatch(/is not empty/);
    // A script tells this refusal from any other by its code.
    expect(JSON.parse(String(again.stdout)).error.error_code).toBe("target_not_empty");
    expect(String(again.stderr)).toMatch(/resellers/);
    expect(await countRows(target.url)).toEqual(counts);
  });

  it("refuses a database another application uses without changing it, not even by migrating", async () => {
    const other = await createTestDatabase({ empty: true });
    try {
      const client = new pg.Client({ connectionString: other.url });
      await client.connect();
      await client.query(
        "CREATE TABLE invoices (id integer PRIMARY KEY); INSERT INTO invoices VALUES (1)",
      );
      const run = await reseller(["admin", "copy", "--from", source.dbFile, "--to", other.url], {
        env: { RESELLER_CONFIG_DIR: tempConfigDir() },
      });
      expect(run.exitCode).toBe(5);
      expect(String(run.stderr)).toMatch(/invoices already hold rows/);
      const tables = await client.query(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
      );
      expect(tables.rows.map((r: { tablename: string }) => r.tablename)).toEqual(["invoices"]);
      await client.end();
    } finally {
      await other.drop();
    }
  });

  it("says the copied database is already current", async () => {
    const run = await reseller(["admin", "migrate", "--database", target.url, "--json"], {
      env: { RESELLER_CONFIG_DIR: tempConfigDir() },
    });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(JSON.parse(String(run.stdout))).toMatchObject({ applied: [], engine: "postgres" });
    const plain = await reseller(["admin", "migrate", "--database", target.url], {
      env: { RESELLER_CONFIG_DIR: tempConfigDir() },
    });
    expect(String(plain.stdout)).toMatch(/already current/);
  });
});

describe("a copy that fails part-way", () => {
  it("rolls everything back: the target stays empty and a later copy can start afresh", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "reseller-copy-")), "reseller.db");
    const database = await openDatabase(file);
    await bootstrap(database.db, systemClock, { bootstrapToken: "rsk_copy_failure_token_0001" });
    await database.close();
    // PostgreSQL's text refuses NUL characters, which SQLite stores: tokens come after
    // resellers and plans, so those are already written when the copy fails.
    const raw = new BetterSqlite3(file);
    raw.prepare("UPDATE tokens SET name = ?").run("bad\u0000name");
    raw.close();
    const target = await createTestDatabase({ empty: true });
    try {
      const run = await runCli(["admin", "copy", "--from", file, "--to", target.url]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/copying tokens failed/);
      expect(run.stderr).toMatch(/rolled back/);
      const counts = await countRows(target.url);
      expect(counts.resellers).toBe(0);
      expect(counts.plans).toBe(0);
      expect(
        Object.entries(counts).filter(([table, n]) => !table.startsWith("kysely_") && n > 0),
      ).toEqual([]);

      const fixed = new BetterSqlite3(file);
      fixed.prepare("UPDATE tokens SET name = ?").run("fixed");
      fixed.close();
      const retry = await runCli(["admin", "copy", "--from", file, "--to", target.url, "--json"]);
      expect(retry.code, retry.stderr).toBe(0);
      expect(JSON.parse(retry.stdout).copied).toBe(true);
    } finally {
      await target.drop();
    }
  });
});
