import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { startServe } from "../helpers/serve.js";

/**
 * Workspaces in the database file alone, as a copy without its write-ahead log reads it; 0 while
 * the file does not hold them yet (nor the tables, created in the log), or is being written.
 */
function workspacesInFileAlone(dbFile: string, copy: string): number {
  copyFileSync(dbFile, copy);
  const sqlite = new BetterSqlite3(copy, { readonly: true });
  try {
    return (sqlite.prepare("select count(*) as n from workspaces").get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    sqlite.close();
  }
}

describe("reseller serve on a SQLite file", () => {
  it("copies what it commits into the database file within a second, on a thread of its own", async () => {
    const service = await startServe();
    try {
      const created = await fetch(`${service.url}/api/v1/workspaces`, {
        method: "POST",
        headers: { authorization: `Bearer ${service.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Acme", contact_email: "owner@acme.test" }),
      });
      expect(created.status).toBe(201);
      // A few pages of log: far below the 4,000 after which a commit would copy them itself.
      expect(existsSync(`${service.dbFile}-wal`)).toBe(true);
      const copy = join(service.dir, "copy.db");
      let found = 0;
      for (const until = Date.now() + 5000; found === 0 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = workspacesInFileAlone(service.dbFile, copy);
      }
      expect(found).toBe(1);
    } finally {
      await service.stop();
    }
  });
});
