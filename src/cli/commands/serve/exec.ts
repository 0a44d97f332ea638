import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { startService } from "../../../service/server.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { stringOption } from "../../options.js";
import { serveSettings } from "./serve-settings.js";

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

/** `reseller serve exec -- <command…>`: the command against a fresh service on a free port. */
export const run: Handler = async (ctx, { args, options }) => {
  const [command, ...commandArgs] = args;
  if (!command) {
    throw usageError("Missing the command to run.", "For example: reseller serve exec -- npm test");
  }
  const settings = serveSettings(options);

  const dir = await mkdtemp(join(tmpdir(), "reseller-exec-"));
  let service: { url: string; close(): Promise<void> } | undefined;
  try {
    const started = await startService({
      host: "127.0.0.1",
      port: 0,
      ...settings,
      dbFile: join(dir, "reseller.db"),
      logLevel: stringOption(options, "logLevel") ?? "silent",
    });
    service = started;
    // A fresh database always gets its first reseller account, with a random token.
    const token = started.bootstrap.createdToken;
    if (!token) throw new Error("the temporary database has no reseller token");
    if (!ctx.globals.quiet) {
      ctx.info(`reseller service on ${started.url} (temporary database); running ${command}`);
    }
    const exitCode = await runCommand(ctx, command, commandArgs, {
      ...ctx.env,
      RESELLER_BASE_URL: started.url,
      RESELLER_TOKEN: token,
    });
    return { exitCode };
  } finally {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  }
};
