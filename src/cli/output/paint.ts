import { Chalk } from "chalk";
import type { Paint } from "./view.js";

const goodWords = new Set([
  "active",
  "approved",
  "completed",
  "opted_in",
  "delivered",
  "read",
  "sent",
  "connected",
]);
const warnWords = new Set([
  "trial",
  "pending",
  "scheduled",
  "running",
  "queued",
  "processing",
  "not_set",
  "draft",
  "paused",
]);
const badWords = new Set([
  "suspended",
  "archived",
  "rejected",
  "failed",
  "opted_out",
  "revoked",
  "disconnected",
]);

const same = (text: string) => text;
const plainPaint: Paint = {
  bold: same,
  dim: same,
  good: same,
  warn: same,
  bad: same,
  status: same,
};

/** Colour helpers for a terminal, or identity functions when colour is off. */
export function createPaint(color: boolean): Paint {
  // Without colour chalk is not touched: the CLI's bundle evaluates it (and its terminal
  // detection, with Node's tty) only on first use (scripts/bundle-cli.mjs).
  if (!color) return plainPaint;
  const chalk = new Chalk({ level: 1 });
  return {
    bold: (t) => chalk.bold(t),
    dim: (t) => chalk.dim(t),
    good: (t) => chalk.green(t),
    warn: (t) => chalk.yellow(t),
    bad: (t) => chalk.red(t),
    status: (word) =>
      goodWords.has(word)
        ? chalk.green(word)
        : warnWords.has(word)
          ? chalk.yellow(word)
          : badWords.has(word)
            ? chalk.red(word)
            : word,
  };
}
