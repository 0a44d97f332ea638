// Each test file gets its own temporary folder, removed when the file ends: the CLI helpers,
// fixtures and spawned services write scratch files under os.tmpdir(), and without this every
// run of the suite left thousands of folders in /tmp.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const outer = tmpdir();
const folder = mkdtempSync(join(outer, "reseller-test-"));
// Readable by others: a PostgreSQL cluster started by a test runs as the postgres user.
chmodSync(folder, 0o755);
process.env.TMPDIR = folder;

afterAll(() => {
  process.env.TMPDIR = outer;
  rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
});
