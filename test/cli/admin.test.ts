import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/service/db/database.js";
import { migrationProvider } from "../../src/service/db/migrations/index.js";
import { runCli } from "../helpers/cli.js";
import { parse } from "../helpers/parse-cli.js";

/** The admin commands on SQLite files, and how they refuse what they cannot do. */

const scratch = () => mkdtempSync(join(tmpdir(), "reseller-admin-"));

/** A current, empty SQLite database of the service. */
async function currentDatabase(): Promise<string> {
  const file = join(scratch(), "reseller.db");
  await (await openDatabase(file)).close();
  return file;
}

/** A SQLite database as an older version left it: every migration but the last. */
async function outdatedDatabase(): Promise<{ file: string; missing: string }> {
  const file = join(scratch(), "old.db");
  const names = Object.keys(await migrationProvider.getMigrations());
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
  });
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
    names.at(-2) as string,
  );
  await db.destroy();
  if (error) throw error;
  return { file, missing: names.at(-1) as string };
}

/** An address where no PostgreSQL listens: a command that refuses early never gets there. */
const nowhere = "postgres://nobody@127.0.0.1:9/nothing";

describe("admin commands: which database", () => {
  it("takes --database, --db and DATABASE_URL on every admin command", async () => {
    for (const command of [
      ["admin", "resellers", "create", "--name", "Acme"],
      ["admin", "migrate"],
    ]) {
      const parsed = await parse([...command, "--database", "postgres://db.internal/reseller"]);
      expect(parsed.captured?.options, command.join(" ")).toMatchObject({
        database: "postgres://db.internal/reseller",
      });
      expect((await parse([...command, "--db", "x.db"])).captured?.options).toMatchObject({
        db: "x.db",
      });
    }
  });

  it("refuses to guess: no database named is a usage error naming both flags", async () => {
    const run = await runCli(["admin", "resellers", "create", "--name", "Acme"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--db <file> or --database <url>/);
    expect((await runCli(["admin", "migrate"])).code).toBe(2);
  });

  it("refuses both flags at once, a --database that is not a URL, and a file that does not exist", async () => {
    const both = await runCli([
      "admin",
      "migrate",
      "--db",
      "x.db",
      "--database",
      "postgres://db.internal/reseller",
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
    const notUrl = await runCli(["admin", "migrate", "--database", "reseller.db"]);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/--db FILE/);
    const badEnv = await runCli(["admin", "migrate"], { env: { DATABASE_URL: "reseller.db" } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toMatch(/DATABASE_URL/);
    const missing = await runCli(["admin", "migrate", "--db", join(scratch(), "typo.db")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No database at/);
    // A URL that does not parse is said so at once, not an unexpected error once it is used.
    for (const [flags, env] of [
      [["--database", "postgres://[bad"], {}],
      [[], { DATABASE_URL: "postgres://postgres@127.0.0.1:notaport/x" }],
    ] as const) {
      const run = await runCli(["admin", "migrate", ...flags], { env: { ...env } });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/is not a URL that can be read: 'postgres:\/\/…'/);
    }
    const serve = await runCli(["serve", "--port", "0", "--database", "postgres://[bad"]);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/--database is not a URL that can be read/);
    const secretUrl = await runCli(["admin", "migrate", "--db", "mysql://u:secret@x/db"]);
    expect(secretUrl.stderr).toContain("No database at mysql://u:***@x/db");
    expect(secretUrl.stderr).not.toContain("secret");
  });

  it("creates a reseller in a SQLite file with --db", async () => {
    const file = await currentDatabase();
    const run = await runCli([
      "admin",
      "resellers",
      "create",
      "--db",
      file,
      "--name",
      "Acme",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      name: "Acme",
      token: expect.stringMatching(/^rsk_/),
    });
  });
});

describe("admin migrate on SQLite", () => {
  it("applies what an older version's file lacks, then says it is current", async () => {
    const { file, missing } = await outdatedDatabase();
    const first = await runCli(["admin", "migrate", "--db", file, "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      applied: [missing],
      engine: "sqlite",
      database: file,
    });
    const again = await runCli(["admin", "migrate", "--db", file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already current/);
  });

  it("lists the migrations it applied for people", async () => {
    const { file, missing } = await outdatedDatabase();
    const run = await runCli(["admin", "migrate", "--db", file]);
    expect(run.stdout).toContain(missing);
    expect(run.stderr).toMatch(/now current \(1 migration applied\)/);
  });

  it("leaves a database of another application as it is instead of adding tables to it (exit 5)", async () => {
    const file = join(scratch(), "crm.db");
    new BetterSqlite3(file).exec(
      "CREATE TABLE customers (id INTEGER); CREATE TABLE orders (id INTEGER)",
    );
    for (const command of [
      ["admin", "migrate"],
      ["serve", "--port", "0"],
    ]) {
      const run = await runCli([...command, "--db", file]);
      expect(run.code, command.join(" ")).toBe(5);
      expect(run.stderr).toContain("tables that are not reseller's (customers, orders)");
      expect(run.stderr).toContain("a database of its own");
    }
    const looked = new BetterSqlite3(file);
    const tables = looked
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all();
    expect(tables).toEqual([{ name: "customers" }, { name: "orders" }]);
    // Not even its journal mode: the file was looked at before anything was set on it.
    expect(looked.pragma("journal_mode", { simple: true })).toBe("delete");
    looked.close();
  });

  it("says a database a newer version migrated is not this version's, changing nothing (exit 5)", async () => {
    const file = await currentDatabase();
    const sqlite = new BetterSqlite3(file);
    sqlite
      .prepare("INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)")
      .run("9999-from-the-future", new Date().toISOString());
    sqlite.close();
    for (const command of [
      ["admin", "migrate"],
      ["serve", "--port", "0"],
    ]) {
      const run = await runCli([...command, "--db", file]);
      expect(run.code, command.join(" ")).toBe(5);
      expect(run.stderr).toContain("migrated by a newer version of reseller");
      expect(run.stderr).toContain("9999-from-the-future");
    }
  });
});

describe("admin copy: what it refuses before touching the target", () => {
  it("needs a SQLite file that exists in --from and a PostgreSQL URL in --to", async () => {
    const file = await currentDatabase();
    const cases: [string[], RegExp][] = [
      [["--to", nowhere], /Missing --from/],
      [["--from", nowhere, "--to", nowhere], /--from takes the SQLite database file/],
      [["--from", join(scratch(), "typo.db"), "--to", nowhere], /No database at/],
      [["--from", file], /Missing --to/],
      [["--from", file, "--to", "other.db"], /--to expects a postgres:\/\//],
      [
        ["--from", file, "--to", "postgres://u:secret@127.0.0.1:notaport/x"],
        /^(?![\s\S]*secret)Error: --to is not a URL that can be read/,
      ],
      [
        ["--from", file, "--to", nowhere, "--database", "postgres://elsewhere/db"],
        /--to or --database, not two different URLs/,
      ],
      [["--from", file, "--database", "other.db"], /--database expects a postgres:\/\//],
      [["--from", file, "--to", "mysql://u:secret@x/db"], /^(?![\s\S]*(--database|secret))/],
      [
        ["--from", "mysql://u:secret@x/db", "--to", nowhere],
        /^(?![\s\S]*secret)[\s\S]*No database at mysql:\/\/u:\*\*\*@x/,
      ],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(["admin", "copy", ...flags]);
      expect(run.code, flags.join(" ")).toBe(2);
      expect(run.stderr, flags.join(" ")).toMatch(message);
    }
  });

  it("never takes the copy's target from DATABASE_URL: --to must name it", async () => {
    const { file } = await outdatedDatabase();
    const run = await runCli(["admin", "copy", "--from", file], { env: { DATABASE_URL: nowhere } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--to");
  });

  it("refuses a file an older version left, pointing at admin migrate (exit 5)", async () => {
    const { file, missing } = await outdatedDatabase();
    const run = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(missing);
    expect(run.stderr).toContain(`reseller admin migrate --db ${file}`);
  });

  /** A file whose instance `ins_live` was last seen 2 s ago, and a way to beat for it. */
  async function fileWithRecentHeartbeat() {
    const file = await currentDatabase();
    const seen = (ago: number) => new Date(Date.now() - ago).toISOString();
    const sqlite = new BetterSqlite3(file);
    sqlite
      .prepare(
        "INSERT INTO instances (id, host, pid, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run("ins_live", "here", 1, seen(60_000), seen(2_000));
    const beat = () =>
      sqlite.prepare("UPDATE instances SET last_seen_at = ? WHERE id = 'ins_live'").run(seen(0));
    return { file, beat, close: () => sqlite.close() };
  }

  it("refuses a file a running serve still writes to, before reaching the target (exit 5)", async () => {
    const { file, beat, close } = await fileWithRecentHeartbeat();
    const beating = setInterval(beat, 1000);
    try {
      const run = await runCli(["admin", "copy", "--from", file, "--to", nowhere, "--json"]);
      expect(run.code).toBe(5);
      expect(run.stderr).toContain("is in use: a reseller serve on it (instance ins_live)");
      expect(JSON.parse(run.stdout).error.error_code).toBe("source_in_use");
    } finally {
      clearInterval(beating);
      close();
    }
  }, 20_000);

  it("copies a backup of a running service, whose last heartbeat is recent but never moves", async () => {
    const { file, close } = await fileWithRecentHeartbeat();
    close();
    // Past the check of the source: the (unreachable) target is what stops it.
    const run = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(run.stderr).not.toContain("is in use");
    expect(run.code).toBe(8);
  }, 20_000);

  it("says when the PostgreSQL server cannot be reached (exit 8)", async () => {
    const file = await currentDatabase();
    const copy = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(copy.code).toBe(8);
    expect(copy.stderr).toMatch(/Cannot reach the PostgreSQL server/);
    expect((await runCli(["admin", "migrate", "--database", nowhere])).code).toBe(8);
    const json = await runCli(["admin", "migrate", "--database", nowhere, "--json"]);
    expect(JSON.parse(json.stdout).error.error_code).toBe("database_unreachable");
  });

  it("says a server that is not PostgreSQL (it hangs up at once) cannot be reached (exit 8)", async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const run = await runCli([
        "admin",
        "migrate",
        "--database",
        `postgres://app:secret@127.0.0.1:${port}/reseller`,
      ]);
      expect(run.code, run.stderr).toBe(8);
      expect(run.stderr).toMatch(/Cannot reach the PostgreSQL server/);
      expect(run.stderr).not.toContain("secret");
    } finally {
      server.close();
    }
  });

  /** A server speaking just enough of PostgreSQL's protocol: one answer per client message. */
  async function fakePostgres(answers: Buffer[]): Promise<{ port: number; close(): void }> {
    const server = createServer((socket) => {
      let next = 0;
      socket.on("data", () => {
        const answer = answers[next++];
        if (answer) socket.write(answer);
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { port: (server.address() as AddressInfo).port, close: () => server.close() };
  }

  /** An authentication message: `R`, its length, its code, then its data. */
  function authentication(code: number, data: string): Buffer {
    const head = Buffer.alloc(9);
    head.write("R", 0);
    head.writeInt32BE(8 + Buffer.byteLength(data), 1);
    head.writeInt32BE(code, 5);
    return Buffer.concat([head, Buffer.from(data)]);
  }

  it("warns that a password on the command line shows in the process list, and where else to put it", async () => {
    const url = "postgres://app:secret@127.0.0.1:9/reseller";
    const migrate = await runCli(["admin", "migrate", "--database", url]);
    expect(migrate.stderr).toContain(
      "Warning: the URL in --database holds a password, which anyone on this machine can read in the process list; put the URL in DATABASE_URL instead, or the password in PGPASSWORD.",
    );
    expect(migrate.stderr).not.toContain("secret");
    const fromEnv = await runCli(["admin", "migrate"], { env: { DATABASE_URL: url } });
    expect(fromEnv.stderr).not.toContain("process list");
    const file = await currentDatabase();
    const copy = await runCli(["admin", "copy", "--from", file, "--to", url]);
    expect(copy.stderr).toContain("put the password in PGPASSWORD instead");
    const bare = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(bare.stderr).not.toContain("process list");
  });

  it("says a URL without the password the server asks for, instead of the driver's words (exit 3)", async () => {
    // SCRAM-SHA-256, as a server with password logins asks: the mechanism, then its first challenge.
    const server = await fakePostgres([
      authentication(10, "SCRAM-SHA-256\0\0"),
      authentication(11, "r=abc,s=c2FsdA==,i=4096"),
    ]);
    try {
      const url = `postgres://app@127.0.0.1:${server.port}/reseller`;
      const run = await runCli(["admin", "migrate", "--database", url]);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain("PostgreSQL asks for a password and the URL has none");
      expect(run.stderr).toContain("PGPASSWORD");
    } finally {
      server.close();
    }
  });

  it("says a server that takes no TLS when the URL asks for it (exit 2)", async () => {
    // The answer to an SSLRequest from a server without ssl.
    const server = await fakePostgres([Buffer.from("N")]);
    try {
      const url = `postgres://app:secret@127.0.0.1:${server.port}/reseller?sslmode=no-verify`;
      const run = await runCli(["admin", "migrate", "--database", url]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain("The PostgreSQL server takes no TLS connections");
      expect(run.stderr).not.toContain("secret");
    } finally {
      server.close();
    }
  });

  it("names the copy's source when it is no SQLite file at all (exit 2)", async () => {
    const file = join(scratch(), "notes.txt");
    writeFileSync(file, "not a database, just words\n".repeat(100));
    const run = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `Cannot open the SQLite database ${file}: the file is not a SQLite database`,
    );
  });

  it("refuses a PostgreSQL URL given to --db, without printing its password (exit 2)", async () => {
    for (const command of [["serve"], ["admin", "migrate"]]) {
      const run = await runCli([...command, "--db", "postgres://app:secret@127.0.0.1:1/reseller"]);
      expect(run.code, command.join(" ")).toBe(2);
      expect(run.stderr).toContain("--database");
      expect(run.stderr).not.toContain("secret");
    }
  });

  it("refuses a file that is not a reseller database (exit 5)", async () => {
    const file = join(scratch(), "other.db");
    new BetterSqlite3(file).exec("CREATE TABLE notes (id INTEGER)");
    const run = await runCli(["admin", "copy", "--from", file, "--to", nowhere]);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/not a reseller database/);
  });
});
