import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, openSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Plan, PlansByPeriod } from "../../src/contract/plans.js";
import { Token } from "../../src/contract/tokens.js";
import { Workspace, WorkspaceWithUsage } from "../../src/contract/workspaces.js";
import { tempConfigDir } from "../helpers/cli.js";
import { binPath, reseller, serveDuringSuite } from "../helpers/serve.js";

describe("--json, --quiet and --all against a real service", () => {
  const { env } = serveDuringSuite();
  const ids: string[] = [];
  const cli = async (args: string[]) => {
    const run = await reseller(args, { env });
    expect(run.exitCode, `${args.join(" ")}\n${run.stderr}`).toBe(0);
    return run.stdout;
  };

  beforeAll(async () => {
    for (const name of ["Acme", "Beta", "Gamma"]) {
      ids.push(await cli(["workspaces", "create", "--name", name, "--email", "o@x.test", "-q"]));
    }
  });

  it("prints with --json exactly the data the API answers, valid against the contract", async () => {
    const cases: [string[], string[], z.ZodType][] = [
      [["plans", "list"], ["GET", "plans"], PlansByPeriod],
      [["plans", "get", "2"], ["GET", "plans/2"], Plan],
      [["workspaces", "get", ids[0] ?? ""], ["GET", `workspaces/${ids[0]}`], WorkspaceWithUsage],
      [["workspaces", "list"], ["GET", "workspaces"], z.array(Workspace)],
      [["tokens", "list"], ["GET", "tokens"], z.array(Token)],
    ];
    for (const [command, request, schema] of cases) {
      const printed = JSON.parse(await cli([...command, "--json"]));
      const answered = JSON.parse(await cli(["api", ...request])).data;
      expect(printed, command.join(" ")).toEqual(answered);
      expect(schema.safeParse(printed).success, command.join(" ")).toBe(true);
    }
  });

  it("prints one id per line with --quiet", async () => {
    for (const id of ids) expect(id).toMatch(/^ws_\w+$/);
    expect((await cli(["workspaces", "list", "-q"])).split("\n")).toEqual([...ids].reverse());
    expect(await cli(["workspaces", "get", ids[1] ?? "", "--quiet"])).toBe(ids[1]);
    expect((await cli(["plans", "list", "-q"])).split("\n")).toEqual(
      expect.arrayContaining(["1", "2"]),
    );
  });

  it("prints the id in force with --quiet where a command shows no list: the token, the default workspace", async () => {
    const token = JSON.parse(await cli(["auth", "status", "--json"])).token_info.id;
    expect(await cli(["auth", "status", "-q"])).toBe(token);
    // A profile store of its own: `use` writes the profile's default workspace.
    const run = await reseller(["workspaces", "use", ids[0] ?? "", "-q"], {
      env: { ...env, RESELLER_CONFIG_DIR: tempConfigDir() },
    });
    expect(run.stdout).toBe(ids[0]);
  });

  it("follows every page with --all, as api --paginate does", async () => {
    const all = (await cli(["workspaces", "list", "--all", "--per-page", "1", "-q"])).split("\n");
    expect(all).toEqual([...ids].reverse());
    const paginated = JSON.parse(await cli(["api", "GET", "workspaces?per_page=1", "--paginate"]));
    expect(paginated.map((w: { id: string }) => w.id)).toEqual(all);
    const onePage = await reseller(["workspaces", "list", "--per-page", "1"], { env });
    expect(onePage.stdout.split("\t")[0]).toBe(ids[2]);
    expect(onePage.stderr).toContain("--all for every page");
  });

  it("exits 1 with one line, never 0, when stdout cannot be written (a full disk under > file)", async () => {
    // The descriptor itself, as a shell's redirection gives it: execa would put a pipe between.
    const full = openSync("/dev/full", "w");
    try {
      for (const command of [
        ["workspaces", "list", "--json"],
        ["plans", "list"],
      ]) {
        const child = spawn("node", [binPath, ...command], {
          env: { ...process.env, ...env, NODE_EXTRA_CA_CERTS: "", CI: "true" },
          stdio: ["ignore", full, "pipe"],
        });
        let stderr = "";
        child.stderr?.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const [code] = await once(child, "close");
        expect(code, command.join(" ")).toBe(1);
        expect(stderr).toBe(
          "Error: could not write to stdout: ENOSPC: no space left on device, write\n",
        );
      }
    } finally {
      closeSync(full);
    }
  });
});
