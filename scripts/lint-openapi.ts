// `npm run lint:openapi`: builds the service in process (no port, in-memory database), writes the
// OpenAPI document it serves to a temporary file, and lints it with Redocly CLI against
// redocly.yaml. Offline: Redocly's telemetry and update checks are turned off.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildApp } from "../src/service/app.js";
import { defaultRateLimit } from "../src/service/config.js";
import { openDatabase } from "../src/service/db/database.js";
import { systemClock } from "../src/service/domain/clock.js";

const root = resolve(import.meta.dirname, "..");
const database = await openDatabase(":memory:");
const app = await buildApp({
  database,
  clock: systemClock,
  publicUrl: () => "http://localhost",
  rateLimit: defaultRateLimit,
});
await app.ready();
const response = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
await app.close();
await database.close();
if (response.statusCode !== 200) {
  console.error(`GET /api/v1/openapi.json answered ${response.statusCode}: ${response.body}`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "reseller-openapi-"));
const file = join(dir, "openapi.json");
// Indented, so the linter's line numbers point somewhere readable.
writeFileSync(file, `${JSON.stringify(JSON.parse(response.body), null, 2)}\n`);
const result = spawnSync(
  process.execPath,
  [
    join(root, "node_modules/@redocly/cli/bin/cli.js"),
    "lint",
    "--config",
    join(root, "redocly.yaml"),
    "--format",
    "stylish",
    file,
  ],
  {
    stdio: "inherit",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  },
);
rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);
