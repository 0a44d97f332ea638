import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Dispatcher } from "undici";
import type { Env } from "../../src/cli/env-vars.js";
import { main } from "../../src/cli/main.js";
import type { Prompter } from "../../src/cli/prompts.js";

/** A stream that records what is written and can claim to be a terminal. */
function sink(isTTY: boolean, columns = 120) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  stream.isTTY = isTTY;
  stream.columns = columns;
  let text = "";
  stream.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  return { stream, text: () => text };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** stdout, stderr and stdin are terminals. */
  tty?: boolean;
  /** The terminal's width (120 unless said). */
  columns?: number;
  env?: Env;
  stdin?: string;
  dispatcher?: Dispatcher;
  prompter?: Prompter;
}

/** A fresh, empty profile folder. */
export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), "reseller-cli-"));
}

/** Runs the CLI in process with fake streams, as the handler tier of the tests does. */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<CliRun> {
  const stdout = sink(options.tty ?? false, options.columns);
  const stderr = sink(options.tty ?? false);
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.tty ?? false;
  stdin.end(options.stdin ?? "");
  const code = await main(argv, {
    io: { stdin, stdout: stdout.stream, stderr: stderr.stream },
    env: { RESELLER_CONFIG_DIR: tempConfigDir(), ...options.env },
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.prompter ? { prompter: options.prompter } : {}),
    sleep: async () => {},
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A prompter that answers from a script and fails on any question it was not given. */
export function scriptedPrompter(
  answers: Record<string, string | boolean>,
): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const answer = (message: string) => {
    asked.push(message);
    const key = Object.keys(answers).find((k) => message.includes(k));
    if (key === undefined) throw new Error(`unexpected prompt: ${message}`);
    return answers[key] as string | boolean;
  };
  return {
    asked,
    input: async (q) => String(answer(q.message)),
    password: async (q) => String(answer(q.message)),
    confirm: async (q) => answer(q.message) === true,
    select: async (q) => answer(q.message) as never,
  };
}
