import type { Command } from "commander";
import type { CommandSpec } from "./command-spec.js";
import type { GlobalOptions, MainDeps, Runner } from "./context.js";
import { loadCliModule } from "./module-loader.js";
import { buildProgram, expansionFor } from "./program.js";

/** The run-time half of the CLI: the code-cached run bundle when bin/ gives one, else ESM. */
async function runner(deps: MainDeps): Promise<Runner> {
  if (deps.loadRunner) return deps.loadRunner();
  const [{ runCommand }, { reportError }] = await Promise.all([
    loadCliModule<typeof import("./run-command.js")>("run-command", deps.importModule),
    loadCliModule<typeof import("./report-error.js")>("report-error", deps.importModule),
  ]);
  return { runCommand, reportError };
}

/**
 * Runs one invocation and returns its exit code. The only place that turns results and
 * errors into output and exit codes; nothing else calls process.exit.
 */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  let exitCode = 0;
  let globals: GlobalOptions = {};
  const program = buildProgram(
    { writeOut: (t) => deps.io.stdout.write(t), writeErr: (t) => deps.io.stderr.write(t) },
    async (spec: CommandSpec, command: Command) => {
      globals = command.optsWithGlobals();
      exitCode = await (await runner(deps)).runCommand(spec, command, globals, deps);
    },
    expansionFor(argv),
  );
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") return 0;
    if (typeof code === "string" && code.startsWith("commander.")) return 2;
    return (await runner(deps)).reportError(error, deps.io, globals);
  }
}
