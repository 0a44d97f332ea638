import Table from "cli-table3";
import { stringify } from "csv-stringify/sync";
import type { CommandResult } from "../command-spec.js";
import { createPaint } from "./paint.js";
import { cellText, type Paint, type View } from "./view.js";

/** How output is written: chosen once from the flags and the terminal. */
export type OutputMode = "json" | "csv" | "quiet" | "table" | "plain";

export interface OutputTarget {
  write(text: string): void;
  color: boolean;
}

const borderless = {
  top: "",
  "top-mid": "",
  "top-left": "",
  "top-right": "",
  bottom: "",
  "bottom-mid": "",
  "bottom-left": "",
  "bottom-right": "",
  left: "",
  "left-mid": "",
  mid: "",
  "mid-mid": "",
  right: "",
  "right-mid": "",
  middle: "  ",
};

function renderTable(headers: string[], rows: string[][], paint: Paint): string {
  const table = new Table({
    head: headers.map((h) => paint.bold(h.toUpperCase())),
    chars: borderless,
    style: { "padding-left": 0, "padding-right": 0, head: [], border: [] },
  });
  table.push(...rows);
  return `${table
    .toString()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")}\n`;
}

function renderRecord(labels: string[], values: string[], paint: Paint): string {
  const width = Math.max(0, ...labels.map((l) => l.length));
  return labels
    .map((label, i) => {
      const value = values[i] ?? "";
      const [first = "", ...rest] = value.split("\n");
      const pad = " ".repeat(width + 2);
      return `${paint.dim(`${label}:`.padEnd(width + 2))}${first}${rest.map((r) => `\n${pad}${r}`).join("")}`;
    })
    .join("\n")
    .concat("\n");
}

function ids(view: View): string[] {
  return view.kind === "stack" ? view.parts.flatMap((p) => ids(p.view)) : view.ids;
}

function csv(view: View): string {
  switch (view.kind) {
    case "table":
      return stringify([view.keys, ...view.raw.map((r) => r.map(cellText))]);
    case "record":
      return stringify([view.keys, view.raw.map(cellText)]);
    case "stack":
      return view.parts[0] ? csv(view.parts[0].view) : "";
    case "text":
      return "";
  }
}

function human(view: View, mode: "table" | "plain", paint: Paint): string {
  switch (view.kind) {
    case "table":
      if (mode === "plain") return view.raw.map((r) => `${r.map(plainCell).join("\t")}\n`).join("");
      return view.raw.length === 0
        ? `${paint.dim(view.empty)}\n`
        : renderTable(view.headers, view.display(paint), paint);
    case "record":
      if (mode === "plain")
        return view.keys.map((k, i) => `${k}\t${plainCell(view.raw[i])}\n`).join("");
      return renderRecord(view.labels, view.display(paint), paint);
    case "stack":
      return view.parts
        .map(
          (p) =>
            (p.title && mode === "table" ? `\n${paint.bold(p.title)}\n` : "") +
            human(p.view, mode, paint),
        )
        .join("");
    case "text": {
      const text = view.text(paint);
      return text.endsWith("\n") ? text : `${text}\n`;
    }
  }
}

/** A raw cell on one tab-separated line: tabs and newlines would break the columns. */
function plainCell(cell: Parameters<typeof cellText>[0]): string {
  return cellText(cell).replace(/[\t\r\n]+/g, " ");
}

/** Writes a command's result to stdout in the chosen mode; the one output writer of the CLI. */
export function renderResult(result: CommandResult, mode: OutputMode, out: OutputTarget): void {
  if (mode === "json") {
    if (result.data !== undefined) out.write(`${JSON.stringify(result.data, null, 2)}\n`);
    return;
  }
  const view = result.view;
  if (!view) return;
  if (mode === "quiet") {
    const list = ids(view);
    if (list.length > 0) out.write(`${list.join("\n")}\n`);
    return;
  }
  if (mode === "csv") {
    out.write(csv(view));
    return;
  }
  // Piped rows are raw values, never painted; free text follows the colour choice (FORCE_COLOR).
  out.write(human(view, mode, createPaint(out.color)));
}
