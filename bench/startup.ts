import { spawnSync } from "node:child_process";
import { bin, cleanEnv, median } from "./support.js";

function time(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: cleanEnv(), stdio: "ignore" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Start-up of `reseller --help` against `node -e 0`, medians of alternating runs. */
export function startup(runs = 25) {
  time([bin, "--help"]); // the first run may write the code cache
  const node: number[] = [];
  const help: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(time(["-e", "0"]));
    help.push(time([bin, "--help"]));
  }
  const ratio = median(help) / median(node);
  return {
    name: "reseller --help vs node -e 0",
    node_ms: Number(median(node).toFixed(1)),
    reseller_help_ms: Number(median(help).toFixed(1)),
    ratio: Number(ratio.toFixed(2)),
    goal: "ratio <= 1.5",
    pass: ratio <= 1.5,
  };
}
