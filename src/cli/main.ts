import type { Command } from "commander";
import type { CommandSpec } from "./command-spec.js";
import type { GlobalOptions, MainDeps } from "./context.js";
import { loadCliModule } from "./module-loader.js";
import { buildProgram, expansionFor } from "./program.js";

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
      const { runCommand } = await loadCliModule<typeof import("./run-command.js")>(
        "run-command",
        deps.importModule,
      );
      exitCode = await runCommand(spec, command, globals, deps);
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
    const { reportError } = await loadCliModule<typeof import("./report-error.js")>(
      "report-error",
      deps.importModule,
    );
    return reportError(error, deps.io, globals);
  }
}
