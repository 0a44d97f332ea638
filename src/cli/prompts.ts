import { usageError } from "./cli-error.js";
import type { Io } from "./io.js";

/** Every question the CLI asks goes through this, so none can hang a pipeline. */
export interface Prompter {
  input(question: {
    message: string;
    default?: string;
    validate?: (value: string) => true | string;
  }): Promise<string>;
  password(question: { message: string }): Promise<string>;
  confirm(question: { message: string; default?: boolean }): Promise<boolean>;
  select<T extends string>(question: {
    message: string;
    choices: { name: string; value: T; description?: string }[];
    default?: T;
  }): Promise<T>;
}

/**
 * The real prompter: @inquirer/prompts on the command's own streams (stderr for the questions),
 * in colour only when the rest of the output is (`--no-color` included).
 */
export function inquirerPrompter(io: Io, color: boolean): Prompter {
  // Read at the first question: touching process.stdin builds its stream, which most runs never use.
  const context = () => ({ input: io.stdin, output: io.stderr });
  const inquirer = () => {
    // inquirer's colours are settled from the environment when it loads, so --no-color has to
    // be said there (FORCE_COLOR would outrank NO_COLOR).
    if (!color) {
      process.env.NO_COLOR = "1";
      delete process.env.FORCE_COLOR;
    }
    return import("@inquirer/prompts");
  };
  return {
    input: async (q) => (await inquirer()).input(q, context()),
    password: async (q) => (await inquirer()).password({ ...q, mask: "*" }, context()),
    // inquirer's own confirm takes any answer not starting with n as its default (`maybe`:
    // yes); this one accepts only yes or no (or Enter for the default) and asks again otherwise.
    confirm: async (q) => {
      const hint = q.default === undefined ? "(y/n)" : q.default ? "(Y/n)" : "(y/N)";
      const answer = await (await inquirer()).input(
        {
          message: `${q.message} ${hint}`,
          validate: (value) =>
            parseYesNo(value, q.default) === undefined ? "Answer yes or no (y/n)." : true,
        },
        context(),
      );
      return parseYesNo(answer, q.default) ?? false;
    },
    select: async (q) => (await inquirer()).select(q, context()),
  };
}

/** A yes/no answer: y, yes, n, no in any case, or empty for the default; undefined otherwise. */
export function parseYesNo(value: string, fallback?: boolean): boolean | undefined {
  const answer = value.trim().toLowerCase();
  if (answer === "") return fallback;
  if (answer === "y" || answer === "yes") return true;
  if (answer === "n" || answer === "no") return false;
  return undefined;
}

/** Asks for confirmation at a terminal; elsewhere only `--yes` lets a costly action proceed. */
export async function confirmOrYes(
  ctx: { canPrompt: boolean; prompter: Prompter },
  yes: boolean,
  question: string,
): Promise<boolean> {
  if (yes) return true;
  if (!ctx.canPrompt) {
    throw usageError(
      `${question.replace(/\?.*$/s, "")}: confirmation needed`,
      "Pass --yes to confirm where nothing is asked (no terminal, or CI set).",
    );
  }
  return ctx.prompter.confirm({ message: question, default: false });
}

/**
 * A required value: its flag when given (blank counts as missing), else asked at a terminal,
 * else the usage error `missing` names, so a run without a terminal never waits for an answer.
 */
export async function flagOrAsk(
  ctx: { canPrompt: boolean; prompter: Prompter },
  given: string | undefined,
  question: { message: string; validate?: (value: string) => true | string },
  missing: { flag: string; hint: string },
): Promise<string> {
  const value = given?.trim();
  if (value) return value;
  if (!ctx.canPrompt) throw usageError(`Missing ${missing.flag}.`, missing.hint);
  return askRequired(ctx.prompter, question);
}

/**
 * Asks for a required value, trimmed: checked by the question's `validate` as it is typed (which
 * then words the refusal of a blank one too), else only refused when blank.
 */
async function askRequired(
  prompter: Prompter,
  question: { message: string; validate?: (value: string) => true | string },
): Promise<string> {
  const answer = await prompter.input({
    validate: (v) => (v.trim() === "" ? "A value is required." : true),
    ...question,
  });
  return answer.trim();
}

/** A required text flag to ask for at a terminal when it is missing. */
export interface MissingFlagQuestion {
  /** The option's key (`name` for --name). */
  key: string;
  message: string;
  validate?: (value: string) => true | string;
}

/**
 * The options with each missing required text flag asked for at a terminal, in order (as
 * flagOrAsk does for one); elsewhere the options as they are, so the command's own check names
 * every flag that is missing.
 */
export async function askForMissing(
  ctx: { canPrompt: boolean; prompter: Prompter },
  options: Readonly<Record<string, unknown>>,
  questions: readonly MissingFlagQuestion[],
): Promise<Readonly<Record<string, unknown>>> {
  if (!ctx.canPrompt) return options;
  const answered: Record<string, unknown> = { ...options };
  for (const { key, ...question } of questions) {
    const given = answered[key];
    if (typeof given === "string" && given.trim() !== "") continue;
    answered[key] = await askRequired(ctx.prompter, question);
  }
  return answered;
}
