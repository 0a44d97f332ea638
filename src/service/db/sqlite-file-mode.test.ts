import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "./database.js";
import { sqliteHandleOf } from "./engine.js";

describe("the SQLite database file", () => {
  let dir = "";
  let database: DatabaseHandle | undefined;
  afterEach(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is created readable by its owner only, and so are its log files", async () => {
    dir = mkdtempSync(join(tmpdir(), "db-mode-"));
    const file = join(dir, "reseller.db");
    const previous = process.umask(0o022);
    try {
      database = await openDatabase(file);
    } finally {
      process.umask(previous);
    }
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}-wal`)).toBe(0o600);
    expect(mode(`${file}-shm`)).toBe(0o600);
  });

  it("keeps the mode an existing file was given", async () => {
    dir = mkdtempSync(join(tmpdir(), "db-mode-"));
    const file = join(dir, "shared.db");
    writeFileSync(file, "", { mode: 0o640 });
    database = await openDatabase(file);
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  it("keeps no deleted row readable in the file's free space", async () => {
    dir = mkdtempSync(join(tmpdir(), "db-mode-"));
    const file = join(dir, "reseller.db");
    database = await openDatabase(file);
    const sqlite = sqliteHandleOf(database.db);
    sqlite.exec("CREATE TABLE scratch (v TEXT)");
    const insert = sqlite.prepare("INSERT INTO scratch (v) VALUES (?)");
    for (let i = 0; i < 10; i++) insert.run(`kept row ${i}`);
    insert.run("Ada Lovelace +4915112345678");
    sqlite.exec("DELETE FROM scratch WHERE v LIKE 'Ada%'");
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const bytes = readFileSync(file);
    expect(bytes.includes("kept row 9")).toBe(true);
    expect(bytes.includes("+4915112345678")).toBe(false);
  });
});
