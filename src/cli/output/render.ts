import type { CommandResult } from "../command-spec.js";

/** How output is written: chosen once from the flags and the terminal. */
export type OutputMode = "json" | "csv" | "quiet" | "table" | "plain";

export interface OutputTarget {
  write(text: string): void;
  /** Writes a message for people (stderr): "No tags yet" is not data. */
  inform(text: string): void;
  color: boolean;
  /** The terminal's width, which tables fit; undefined when unknown (piped, or a test's stream). */
  columns?: number | undefined;
}

/** Writes a command's result to stdout in the chosen mode; the one output writer of the CLI. */
export async function renderResult(
  result: CommandResult,
  mode: OutputMode,
  out: OutputTarget,
): Promise<void> {
  if (mode === "json") {
    if (result.data !== undefined) out.write(`${JSON.stringify(result.data, null, 2)}\n`);
    return;
  }
  if (!result.view) return;
  const { renderText } = await import("./render-text.js");
  await renderText(result, mode, out);
}
