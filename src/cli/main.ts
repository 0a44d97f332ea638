import type { Command } from "commander";
import { errorJsonText } from "./cli-error.js";
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

/** The words that name a command after `reseller` (`workspaces create`). */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(" ");
}

/** `--json` among the CLI's own words (not in a command line after `--`, as `serve exec` runs). */
function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * Runs one invocation and returns its exit code. The only place that turns results and
 * errors into output and exit codes; nothing else calls process.exit.
 */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  let exitCode = 0;
  let globals: GlobalOptions = {};
  let running = "";
  const program = buildProgram(
    { writeOut: (t) => deps.io.stdout.write(t), writeErr: (t) => deps.io.stderr.write(t) },
    async (spec: CommandSpec, command: Command) => {
      globals = command.optsWithGlobals();
      running = commandPath(command);
      exitCode = await (await runner(deps)).runCommand(spec, command, globals, deps);
    },
    expansionFor(argv),
  );
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    const { code, exitCode: commanderExit } = error as { code?: string; exitCode?: number };
    if (code === "commander.helpDisplayed" || code === "commander.version") return 0;
    // `reseller help [command]` asked for help (exit 0); a group named alone shows it as an error.
    if (code === "commander.help" && commanderExit === 0) return 0;
    if (typeof code === "string" && code.startsWith("commander.")) {
      // Commander has told people on stderr; with --json a script reads the same on stdout.
      if (asksForJson(argv)) {
        // A group named without its command shows its help; its "error" is help's own marker.
        const message =
          code === "commander.help"
            ? "missing command: the help above lists this group's commands"
            : String((error as Error).message).replace(/^error: /, "");
        deps.io.stdout.write(
          errorJsonText({
            status: null,
            error_code: "usage",
            message,
            details: [],
            request_id: null,
          }),
        );
      }
      return 2;
    }
    return (await runner(deps)).reportError(error, deps.io, globals, running, deps.env);
  }
}
