import type { Command } from "commander";
import { errorJsonText } from "./cli-error.js";
import type { CommandSpec } from "./command-spec.js";
import { createContext, type GlobalOptions, type MainDeps } from "./context.js";
import { loadHandler } from "./module-loader.js";
import { renderResult } from "./output/render.js";

/** Runs a parsed leaf command: builds its context, loads its handler, writes its result. */
export async function runCommand(
  spec: CommandSpec,
  command: Command,
  globals: GlobalOptions,
  deps: MainDeps,
): Promise<number> {
  const ctx = createContext(deps, globals);
  const run = await loadHandler(spec.handler, deps.importModule);
  const result = await run(ctx, {
    args: command.args,
    options: globals as Record<string, unknown>,
  });
  const failed = (result.exitCode ?? 0) !== 0;
  if (failed && ctx.output === "json" && result.errorCode !== undefined) {
    // A command that ran but failed (a template rejected, rows refused with --strict) prints
    // the error as every failure does. One whose output stands on its own (onboarding's record
    // of what was and was not created, `serve exec`'s command) says so by giving no code.
    ctx.io.stdout.write(
      errorJsonText({
        status: result.status ?? null,
        error_code: result.errorCode,
        message: result.message ?? "",
        details: result.details ?? [],
        request_id: result.requestId ?? null,
      }),
    );
  } else {
    await renderResult(result, ctx.output, {
      write: (t) => ctx.io.stdout.write(t),
      inform: (t) => ctx.io.stderr.write(t),
      color: ctx.color,
      columns: ctx.io.stdout.columns,
    });
  }
  // --json and --quiet keep stderr quiet too, but an exit other than 0 always says why.
  const machine = ctx.output === "json" || ctx.output === "quiet";
  if (result.message && (!machine || failed)) ctx.info(result.message);
  for (const warning of result.warnings ?? []) ctx.info(warning);
  if (ctx.output === "quiet") for (const secret of result.secrets ?? []) ctx.info(secret);
  return result.exitCode ?? 0;
}
