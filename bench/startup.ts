import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin, cleanEnv, median, startService } from "./support.js";

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: "ignore" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Commands that call the service, each timed against a local one. */
const serviceCommands = [
  ["plans", "list", "--json"],
  ["plans", "list"],
  ["workspaces", "list"],
  ["tokens", "list", "--json"],
];

/**
 * Start-up against `node -e 0` in the same run (medians of alternating runs, without
 * NODE_EXTRA_CA_CERTS for either): `reseller --help`, and each command above against a local
 * service, whose own answer (about a millisecond) is part of the command's time.
 */
export async function startup(runs = 21) {
  const service = await startService();
  try {
    const env = cleanEnv({
      RESELLER_BASE_URL: service.url,
      RESELLER_TOKEN: service.token,
      RESELLER_CONFIG_DIR: mkdtempSync(join(tmpdir(), "reseller-bench-profile-")),
    });
    const commands = [["--help"], ...serviceCommands];
    for (const args of commands) time([bin, ...args], env); // the first runs write the code caches
    const node: number[] = [];
    const times = commands.map(() => [] as number[]);
    for (let i = 0; i < runs; i++) {
      commands.forEach((args, c) => {
        node.push(time(["-e", "0"], env));
        times[c]?.push(time([bin, ...args], env));
      });
    }
    const base = median(node);
    const figures = commands.map((args, c) => {
      const ms = median(times[c] ?? []);
      return {
        command: `reseller ${args.join(" ")}`,
        ms: Number(ms.toFixed(1)),
        ratio: Number((ms / base).toFixed(2)),
      };
    });
    const help = figures[0]?.ratio ?? Number.POSITIVE_INFINITY;
    const worst = Math.max(...figures.slice(1).map((f) => f.ratio));
    return {
      name: "start-up vs node -e 0",
      node_ms: Number(base.toFixed(1)),
      commands: figures,
      goal: "--help ratio <= 1.5, every service command ratio <= 3",
      pass: help <= 1.5 && worst <= 3,
    };
  } finally {
    await service.stop();
  }
}
