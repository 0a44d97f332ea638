import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LogFormat } from "../../../service/human-log.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { databaseTarget } from "../../database-target.js";
import { intOption, stringOption } from "../../options.js";
import { startServiceOrExplain } from "./serve.js";
import { bootstrapTokenOption, hostOption, serveSettings } from "./serve-settings.js";

/** Signals passed on to the command; Ctrl-C reaches it from the terminal on its own. */
const forwardedSignals = ["SIGTERM", "SIGHUP"] as const;

/** Wires the command's streams to the CLI's: inherited when they are the process's own. */
function connectStreams(ctx: Context, child: ChildProcess): void {
  if (child.stdout) child.stdout.pipe(ctx.io.stdout, { end: false });
  if (child.stderr) child.stderr.pipe(ctx.io.stderr, { end: false });
  if (child.stdin) ctx.io.stdin.pipe(child.stdin).on("error", () => {});
}

/** Runs the command to its end and returns its exit code, shell style. */
function runCommand(
  ctx: Context,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const own = (stream: unknown, processStream: unknown) =>
    stream === processStream ? "inherit" : "pipe";
  const child = spawn(command, args, {
    env,
    stdio: [
      own(ctx.io.stdin, process.stdin),
      own(ctx.io.stdout, process.stdout),
      own(ctx.io.stderr, process.stderr),
    ],
  });
  connectStreams(ctx, child);
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of forwardedSignals) process.on(signal, forward);
  // The terminal sends Ctrl-C to the command too: wait for it to end, then clean up.
  const ignore = () => {};
  process.on("SIGINT", ignore);
  return new Promise<number>((resolve) => {
    const done = (code: number) => {
      for (const signal of forwardedSignals) process.off(signal, forward);
      process.off("SIGINT", ignore);
      resolve(code);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      ctx.info(
        `Cannot run ${command}: ${error.code === "ENOENT" ? "command not found" : error.message}`,
      );
      done(127);
    });
    child.on("close", (code, signal) => {
      done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}

/** The CLI's own launcher, for the command's PATH. */
const launcher = fileURLToPath(new URL("../../../../bin/reseller.cjs", import.meta.url));

/**
 * Writes a `reseller` that runs this CLI into `dir`, so the command finds it on its PATH even
 * when the package was never installed or linked.
 */
async function writeShim(dir: string): Promise<void> {
  if (process.platform === "win32") {
    await writeFile(join(dir, "reseller.cmd"), `@"${process.execPath}" "${launcher}" %*\r\n`);
    return;
  }
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  await writeFile(
    join(dir, "reseller"),
    `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(launcher)} "$@"\n`,
    { mode: 0o755 },
  );
}

/** `reseller serve exec -- <command…>`: the command against a fresh service on a free port. */
export const run: Handler = async (ctx, { args, options }) => {
  const [command, ...commandArgs] = args;
  if (!command) {
    throw usageError("Missing the command to run.", "For example: reseller serve exec -- npm test");
  }
  // The SMTP server by flag only: an exported RESELLER_SMTP_URL must not make a throwaway test
  // service email the addresses a script makes up.
  const settings = serveSettings(options, { ...ctx.env, RESELLER_SMTP_URL: undefined });
  // Flags only: a DATABASE_URL in the environment must not turn the throwaway service into one
  // on somebody's PostgreSQL database.
  const given = databaseTarget(options, {}, null);
  const givenDb = given?.label;

  const dir = await mkdtemp(join(tmpdir(), "reseller-exec-"));
  let service: { url: string; close(): Promise<void> } | undefined;
  try {
    const started = await startServiceOrExplain({
      host: hostOption(options),
      port: intOption(options, "port", { min: 0, max: 65535 }) ?? 0,
      ...settings,
      // A database given with --db is the caller's: used as it is and kept afterwards.
      database: given?.target ?? join(dir, "reseller.db"),
      bootstrapToken: givenDb ? bootstrapTokenOption(ctx.env) : undefined,
      logLevel: stringOption(options, "logLevel") ?? "silent",
      logFormat: (stringOption(options, "logFormat") ?? "json") as LogFormat,
      logDestination: ctx.io.stdout,
    });
    service = started;
    // A new database gets its first reseller account; an existing one needs the caller's token.
    const token = started.bootstrap.createdToken ?? (givenDb ? ctx.env.RESELLER_TOKEN : undefined);
    if (!token) {
      throw usageError(
        `The database ${givenDb} already has a reseller account, and no token was given for it.`,
        "Set RESELLER_TOKEN to one of its tokens, or leave out --db and --database for a fresh database.",
      );
    }
    if (!ctx.globals.quiet) {
      ctx.info(
        `reseller service on ${started.url} (${givenDb ? `database ${givenDb}` : "temporary database"}); running ${command}`,
      );
    }
    const bin = join(dir, "bin");
    await mkdir(bin);
    await writeShim(bin);
    const exitCode = await runCommand(ctx, command, commandArgs, {
      ...ctx.env,
      PATH: [bin, ctx.env.PATH ?? process.env.PATH ?? ""].filter(Boolean).join(delimiter),
      RESELLER_BASE_URL: started.url,
      RESELLER_TOKEN: token,
      // A profile store of its own: the user's default workspace (of another service) is not
      // read, and `workspaces use` or `login` inside the command do not change the user's.
      RESELLER_CONFIG_DIR: join(dir, "config"),
    });
    return { exitCode };
  } finally {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  }
};
