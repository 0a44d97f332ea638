import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

const fixture = (name: string) => join(import.meta.dirname, "../fixtures/csv", name);

/** The built CLI against the built service, as a CI script would run them. */
describe("reseller contacts import of real-shaped files (built binary)", () => {
  let service: ServedService;
  let env: Record<string, string>;
  beforeAll(async () => {
    service = await startServe();
    env = { ...serviceEnv(service), RESELLER_CONFIG_DIR: tempConfigDir() };
    const created = await reseller(
      [
        "workspaces",
        "create",
        "--name",
        "CSV",
        "--email",
        "o@example.test",
        "--no-invite",
        "--json",
      ],
      { env },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    env.RESELLER_WORKSPACE = (JSON.parse(created.stdout) as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  });

  it("imports each file with its flags, and --strict makes a refused row exit 6", async () => {
    const runs: [string[], number, Record<string, unknown>][] = [
      [[fixture("google-contacts.csv"), "--preset", "google"], 0, { created: 3, error_count: 1 }],
      [
        [fixture("outlook-contacts.csv"), "--preset", "outlook", "--default-country", "GB"],
        0,
        { created: 3, error_count: 0 },
      ],
      [
        [
          fixture("hubspot-contacts.csv"),
          "--preset",
          "hubspot",
          "--default-country",
          "IT",
          "--strict",
        ],
        6,
        { created: 2, error_count: 1 },
      ],
      [
        [fixture("semicolon-excel.csv"), "--default-country", "DE"],
        0,
        { created: 3, delimiter: ";" },
      ],
      [
        [fixture("windows-1252.csv"), "--encoding", "windows-1252"],
        0,
        { created: 3, encoding: "windows-1252" },
      ],
      [[fixture("utf16-bom.csv")], 0, { created: 2, encoding: "utf-16le", delimiter: "\t" }],
    ];
    for (const [args, code, record] of runs) {
      const run = await reseller(["contacts", "import", ...args, "--json"], { env });
      expect(run.exitCode, `${args[0]}: ${run.stderr}`).toBe(code);
      if (code === 0) {
        expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", ...record });
        continue;
      }
      // A failure (--strict and a refused row) prints the error instead, as every failure does.
      const { error } = JSON.parse(run.stdout);
      expect(error).toMatchObject({ error_code: "rows_refused" });
      const [last] = JSON.parse(
        (await reseller(["contacts", "imports", "list", "--json"], { env })).stdout,
      );
      expect(last).toMatchObject({ status: "completed", ...record });
      // The import's id leads the details, so a script can follow it up.
      expect(error.details[0]).toEqual({ field: "import_id", message: last.id });
      expect(error.details[1]).toMatchObject({ row: expect.any(Number) });
    }
  }, 120_000);

  it("refuses a Google export without a preset when no one can be asked, naming the preset", async () => {
    const run = await reseller(["contacts", "import", fixture("google-contacts.csv")], { env });
    expect(run.exitCode).toBe(6);
    expect(run.stderr).toContain("--preset google");
  }, 60_000);
});
