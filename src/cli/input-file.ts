import { type CliError, usageError } from "./cli-error.js";

const reasons: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
};

/**
 * The usage error for a file the user named that cannot be read (`named` says how: `'x.csv'`,
 * `--import file 'x.csv'`), with the reason in words rather than a system code.
 */
export function cannotRead(named: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const reason =
    (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return usageError(`Cannot read ${named}: ${reason}.`);
}
