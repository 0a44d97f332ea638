import { typedE164 } from "../contract/phones.js";
import { paging } from "../contract/vocabulary.js";
import { usageError } from "./cli-error.js";

type Options = Readonly<Record<string, unknown>>;

/** The command-line flag of an option key: `headerExample` is `--header-example`. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** A string option, or undefined when not given. */
export function stringOption(options: Options, key: string): string | undefined {
  const value = options[key];
  return typeof value === "string" ? value : undefined;
}

/** The flags among `keys` that were not given (empty counts as not given), as `--flag-name`. */
export function missingFlags(options: Options, keys: readonly string[]): string[] {
  return keys.filter((key) => (stringOption(options, key) ?? "").trim() === "").map(flagName);
}

/**
 * Refuses, naming every one at once, the flags among `keys` that were not given: a script
 * learns all it must add from one run, not one flag per run.
 */
export function requireFlags(options: Options, keys: readonly string[], hint?: string): void {
  const missing = missingFlags(options, keys);
  if (missing.length === 0) return;
  throw usageError(`Missing ${missing.join(", ")}.`, hint);
}

/** A string option that must be given (without a terminal to ask at). */
export function requiredString(options: Options, key: string): string {
  const value = stringOption(options, key);
  if (value === undefined || value === "") throw usageError(`Missing ${flagName(key)}.`);
  return value;
}

/** A whole-number option within bounds. */
export function intOption(
  options: Options,
  key: string,
  bounds: { min?: number; max?: number } = {},
): number | undefined {
  const raw = stringOption(options, key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    const range = bounds.max === undefined ? `at least ${min}` : `from ${min} to ${max}`;
    throw usageError(`${flagName(key)} expects a whole number ${range}; got '${raw}'.`);
  }
  return value;
}

/**
 * A number of seconds within bounds, fractions allowed (`0.5`: tests shorten waits below a
 * second), as whole milliseconds.
 */
export function secondsOption(
  options: Options,
  key: string,
  bounds: { min: number; max: number },
): number | undefined {
  const raw = stringOption(options, key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || value < bounds.min || value > bounds.max) {
    throw usageError(
      `${flagName(key)} expects a number of seconds from ${bounds.min} to ${bounds.max}; got '${raw}'.`,
    );
  }
  return Math.round(value * 1000);
}

/** A flag's value: true only when it was given (commander sets it to true). */
export function booleanOption(options: Options, key: string): boolean {
  return options[key] === true;
}

/** A repeatable option's values (empty when not given). */
export function listOption(options: Options, key: string): string[] {
  const value = options[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Paging flags of a list command. */
export function pagingOptions(options: Options): { page: number; perPage: number; all: boolean } {
  const all = booleanOption(options, "all");
  // --all walks from the first page by cursor: a page given with it would be silently ignored.
  if (all && options.page !== undefined) {
    throw usageError(
      "--page and --all do not go together: --all follows every page from the first.",
    );
  }
  return {
    page: intOption(options, "page", { min: 1, max: paging.maxPage }) ?? 1,
    perPage:
      intOption(options, "perPage", { min: 1, max: paging.maxPerPage }) ?? paging.defaultPerPage,
    all,
  };
}

/**
 * A phone given by `flag`, in E.164 once its spaces, dashes and brackets are dropped
 * (`+49 151 1234 0401`), checked as the service will (valid for its country) before any request.
 */
export function e164Flag(phone: string, flag: string): string {
  const checked = typedE164(phone);
  if (!checked.ok) throw usageError(`${flag}: ${checked.message}.`);
  return checked.e164;
}

/** A typed phone as a question checks it: true, or why it is not E.164 and valid. */
export function e164Answer(value: string): true | string {
  const checked = typedE164(value);
  return checked.ok || checked.message;
}
