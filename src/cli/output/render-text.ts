// Text output (tables, records, tab-separated and CSV): loaded only when a command prints for
// people or spreadsheets, so `--json` never loads cli-table3, csv-stringify or chalk; and each
// of the first two only in the one mode that uses it (tables at a terminal, --csv).
import type TableClass from "cli-table3";
import type { stringify as Stringify } from "csv-stringify/sync";
import { neutraliseFormula } from "../../contract/csv-formulas.js";
import type { CommandResult } from "../command-spec.js";
import { createPaint } from "./paint.js";
import type { OutputMode, OutputTarget } from "./render.js";
import { terminalText, withoutControls } from "./terminal-text.js";
import { cellText, type Paint, plainCell, type View } from "./view.js";

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

/** The packages of the mode in use, loaded by renderText before it renders. */
const loaded: { Table?: typeof TableClass; stringify?: typeof Stringify } = {};

/** Space between two columns (the borderless table's `middle`). */
const gap = borderless.middle.length;
/**
 * How narrow a column is cut when a table is fitted to the terminal: long columns first down to
 * `roomy`, then, when that is not enough (seven columns on 80) and cutting further makes the
 * table fit, any to `narrowest`. A column of ids or phone numbers is never cut, whatever its
 * length: those values are copied into the next command.
 */
const roomy = 24;
const narrowest = 8;
// biome-ignore lint/suspicious/noControlCharactersInRegex: our colour sequences, kept whole.
const colourCodes = /(\u001b\[[0-9;]*m)/;

/** The text without its colour codes. */
function uncoloured(text: string): string {
  return text
    .split(colourCodes)
    .filter((_part, i) => i % 2 === 0)
    .join("");
}

/** Characters a cell shows (colour codes aside; a wide character counts as one). */
function visibleLength(text: string): number {
  return [...uncoloured(text)].length;
}

/** The cell cut to `width` visible characters, the last one "…", its colour codes kept whole. */
function cut(text: string, width: number): string {
  if (visibleLength(text) <= width) return text;
  let left = width - 1;
  let kept = "";
  for (const [i, part] of text.split(colourCodes).entries()) {
    if (i % 2 === 1) kept += part;
    else if (left > 0) {
      const chars = [...part].slice(0, left);
      kept += chars.join("");
      left -= chars.length;
      if (left === 0) kept += "…";
    }
  }
  return kept;
}

/** An id of ours (`ws_01J…`) or a phone number: values people copy, so never cut. */
const idPattern = /^(?:[a-z]+_[0-9A-Za-z]{20,}|\+\d{8,15})$/;

/**
 * Column widths that fit `columns`: the widest cuttable column is narrowed first, one character
 * at a time (see `roomy` and `narrowest`); undefined when the natural widths fit.
 */
function fittedWidths(
  natural: number[],
  columns: number,
  cuttable: boolean[],
): number[] | undefined {
  const room = columns - gap * (natural.length - 1);
  const widths = [...natural];
  const total = () => widths.reduce((sum, width) => sum + width, 0);
  if (total() <= room) return undefined;
  const cutTo = (floor: number) => {
    while (total() > room) {
      const candidates = widths.map((width, c) => (cuttable[c] ? width : 0));
      const widest = candidates.indexOf(Math.max(...candidates));
      if ((candidates[widest] ?? 0) <= floor) break;
      widths[widest] = (widths[widest] ?? 0) - 1;
    }
  };
  cutTo(roomy);
  // Cutting dates and names to a few characters is worth it only for a table that then fits.
  const least = widths.reduce(
    (sum, width, c) => sum + (cuttable[c] ? Math.min(width, narrowest) : width),
    0,
  );
  if (least <= room) cutTo(narrowest);
  return widths;
}

/**
 * A table of `rows` as a terminal `columns` wide shows it, and the headers of the columns left
 * out: when even cut values cannot make every column fit (ids and phones are never cut), the
 * last columns are left out rather than every line wrapped.
 */
function renderTable(
  allHeaders: string[],
  allRows: string[][],
  paint: Paint,
  colour: boolean,
  columns: number | undefined,
): { text: string; hidden: string[] } {
  const Table = loaded.Table as typeof TableClass;
  let headers = allHeaders;
  let head = headers.map((h) => paint.bold(h.toUpperCase()));
  let cells = allRows.map((row) => row.map((cell) => terminalText(cell, "one", colour)));
  let natural = head.map((h, c) =>
    Math.max(visibleLength(h), ...cells.map((row) => visibleLength(row[c] ?? ""))),
  );
  // A table wider than the terminal shows its long values cut, as `gh` does: whole values are
  // in `get`, --json and piped output.
  let cuttable = headers.map(
    (h, c) => !/\bid$/i.test(h) && !cells.some((row) => idPattern.test(uncoloured(row[c] ?? ""))),
  );
  // A pseudo-terminal without a size (`script` in CI) says 0 columns: as good as unknown.
  let fitted = columns ? fittedWidths(natural, columns, cuttable) : undefined;
  const width = (widths: number[]) =>
    widths.reduce((sum, w) => sum + w, 0) + gap * (widths.length - 1);
  while (columns && fitted && width(fitted) > columns && headers.length > 1) {
    headers = headers.slice(0, -1);
    head = head.slice(0, -1);
    cells = cells.map((row) => row.slice(0, headers.length));
    natural = natural.slice(0, -1);
    cuttable = cuttable.slice(0, -1);
    fitted = fittedWidths(natural, columns, cuttable);
  }
  const hidden = allHeaders.slice(headers.length).map((h) => h.toUpperCase());
  if (fitted) {
    head = head.map((h, c) => cut(h, fitted[c] ?? h.length));
    cells = cells.map((row) => row.map((cell, c) => cut(cell, fitted[c] ?? cell.length)));
  }
  const table = new Table({
    head,
    chars: borderless,
    style: { "padding-left": 0, "padding-right": 0, head: [], border: [] },
  });
  table.push(...cells);
  const text = `${table
    .toString()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")}\n`;
  return { text, hidden };
}

function renderRecord(labels: string[], values: string[], paint: Paint, colour: boolean): string {
  const width = Math.max(0, ...labels.map((l) => l.length));
  return labels
    .map((label, i) => {
      const value = terminalText(values[i] ?? "", "many", colour);
      const [first = "", ...rest] = value.split("\n");
      const pad = " ".repeat(width + 2);
      return `${paint.dim(`${label}:`.padEnd(width + 2))}${first}${rest.map((r) => `\n${pad}${r}`).join("")}`;
    })
    .join("\n")
    .concat("\n");
}

/**
 * `view` written under `key` for piped output: a record's keys as `contact_import.id`, a table's
 * rows each led by the key (`errors\t2\t+49…`), so no line reads as another part's field.
 */
function keyedUnder(view: View, key: string): View {
  if (view.kind === "record") return { ...view, keys: view.keys.map((k) => `${key}.${k}`) };
  if (view.kind === "table") {
    const led = <T>(rows: T[][]) => rows.map((row) => [key, ...row]);
    return { ...view, raw: led(view.raw), piped: (paint) => led(view.piped(paint)) };
  }
  if (view.kind === "stack") {
    return {
      ...view,
      parts: view.parts.map((p) =>
        p.key ? { ...p, key: `${key}.${p.key}` } : { ...p, view: keyedUnder(p.view, key) },
      ),
    };
  }
  return view;
}

function ids(view: View): string[] {
  return view.kind === "stack" ? view.parts.flatMap((p) => ids(p.view)) : view.ids;
}

function csv(view: View): string {
  const stringify = loaded.stringify as typeof Stringify;
  switch (view.kind) {
    case "table":
      return stringify([view.keys, ...view.raw.map((r) => r.map(csvCell))]);
    case "record":
      return stringify([view.keys, view.raw.map(csvCell)]);
    case "stack":
      return view.parts[0] ? csv(view.parts[0].view) : "";
    case "text":
      return "";
  }
}

function human(
  view: View,
  mode: "table" | "plain",
  paint: Paint,
  out: { colour: boolean; columns: number | undefined; inform(text: string): void },
): string {
  const { colour, columns } = out;
  switch (view.kind) {
    case "table":
      if (mode === "plain")
        return (colour ? view.piped(paint) : view.raw.map((r) => r.map(plainCell)))
          .map((r) => `${r.join("\t")}\n`)
          .join("");
      if (view.raw.length > 0) {
        const { text, hidden } = renderTable(
          view.headers,
          view.display(paint),
          paint,
          colour,
          columns,
        );
        if (hidden.length > 0) {
          out.inform(
            `Not shown at this width: ${hidden.join(", ")} (a wider terminal, --json or --csv shows them).\n`,
          );
        }
        return text;
      }
      // Plain: stdout's colour choice says nothing of where stderr goes (`2>file`).
      out.inform(`${view.empty}\n`);
      return "";
    case "record":
      if (mode === "plain") {
        const values = colour ? view.piped(paint) : view.raw.map(plainCell);
        return view.keys.map((k, i) => `${k}\t${values[i]}\n`).join("");
      }
      return renderRecord(view.labels, view.display(paint), paint, colour);
    case "stack":
      return view.parts
        .map(
          (p) =>
            (p.title && mode === "table" ? `\n${paint.bold(p.title)}\n` : "") +
            human(mode === "plain" && p.key ? keyedUnder(p.view, p.key) : p.view, mode, paint, out),
        )
        .join("");
    case "text": {
      const text = terminalText(view.text(paint), "many", colour);
      return text.endsWith("\n") ? text : `${text}\n`;
    }
  }
}

/**
 * A `--csv` cell: formulas neutralised, so a spreadsheet opening it runs nothing, and control
 * characters other than line breaks and tabs (which CSV quotes) dropped, so a file shown at a
 * terminal cannot clear or retitle it.
 */
function csvCell(cell: Parameters<typeof cellText>[0]): string {
  return neutraliseFormula(withoutControls(cellText(cell)));
}

/** Writes a result's view in one of the text modes. */
export async function renderText(
  result: CommandResult,
  mode: Exclude<OutputMode, "json">,
  out: OutputTarget,
): Promise<void> {
  if (mode === "table") loaded.Table ??= (await import("cli-table3")).default;
  if (mode === "csv") loaded.stringify ??= (await import("csv-stringify/sync")).stringify;
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
  // Piped rows are raw values; FORCE_COLOR paints their status words and free text.
  out.write(
    human(view, mode, createPaint(out.color), {
      colour: out.color,
      columns: out.columns,
      inform: (text) => out.inform(text),
    }),
  );
}
