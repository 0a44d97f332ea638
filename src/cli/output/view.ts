import { stripVTControlCharacters } from "node:util";
import { withoutControls } from "./terminal-text.js";

/** A value in a table cell or record field, before formatting. */
export type Cell = string | number | boolean | null | undefined;

/** Colour helpers handed to display functions; all identity when colour is off. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  good(text: string): string;
  warn(text: string): string;
  bad(text: string): string;
  /** Colours a status word by what it means (active green, suspended red, …). */
  status(word: string): string;
}

/** One column: `value` is the raw cell (CSV, plain), `display` what a person sees at a terminal. */
export interface Column<Row> {
  header: string;
  /** The CSV header; the wire field name where there is one. */
  key: string;
  value(row: Row): Cell;
  display?(row: Row, paint: Paint): string;
  /** false: in CSV and piped output only, left out of the terminal's table or record (a detail). */
  terminal?: false;
  /** false: at a terminal only, where it joins fields that CSV and piped output give apart. */
  piped?: false;
}

/** How a result is shown to people; JSON output ignores views and prints `data`. */
export type View =
  | {
      kind: "table";
      headers: string[];
      keys: string[];
      raw: Cell[][];
      display(paint: Paint): string[][];
      /** The piped cells, status words painted as at a terminal (only FORCE_COLOR asks). */
      piped(paint: Paint): string[][];
      ids: string[];
      empty: string;
    }
  | {
      kind: "record";
      labels: string[];
      keys: string[];
      raw: Cell[];
      display(paint: Paint): string[];
      /** The piped values, status words painted as at a terminal (only FORCE_COLOR asks). */
      piped(paint: Paint): string[];
      ids: string[];
    }
  | { kind: "stack"; parts: StackPart[] }
  | { kind: "text"; text(paint: Paint): string; ids: string[] };

/**
 * One view of a stack, under an optional title at a terminal. `key` is the field that holds its
 * data in --json (`contact_import`, `errors`): piped output writes its fields under it
 * (`contact_import.id`) and leads each of its table rows with it, so they never read as the
 * first part's.
 */
export interface StackPart {
  title?: string;
  key?: string;
  view: View;
}

/** Plain text of a raw cell. */
export function cellText(cell: Cell): string {
  if (cell === null || cell === undefined) return "";
  return String(cell);
}

/**
 * A raw cell on one tab-separated line: tabs and newlines would break the columns, and other
 * control characters reach whatever terminal the lines are piped to (`| grep`, `| less -R`).
 */
export function plainCell(cell: Cell): string {
  return withoutControls(cellText(cell)).replace(/[\t\r\n]+/g, " ");
}

const same = (text: string) => text;

/** Only status words keep their colour in piped lines: bold names would be decoration. */
function statusOnly(paint: Paint): Paint {
  return { bold: same, dim: same, good: same, warn: same, bad: same, status: paint.status };
}

/**
 * A piped cell with the terminal's colour where the terminal shows the same value painted (a
 * status word), so colour never changes what a script reads once the codes are stripped.
 */
function pipedCell<Row>(column: Column<Row>, row: Row, clean: Row, paint: Paint): string {
  const text = plainCell(column.value(row));
  const shown = column.display?.(clean, statusOnly(paint));
  return shown !== undefined && stripVTControlCharacters(shown) === text ? shown : text;
}

function idOf(row: unknown): string[] {
  const id = (row as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? [String(id)] : [];
}

/** A list shown as a table at a terminal, tab-separated lines when piped, CSV with --csv. */
export function tableView<Row>(
  rows: readonly Row[],
  columns: Column<Row>[],
  options: { empty?: string; ids?: (row: Row) => string } = {},
): View {
  const shown = columns.filter((c) => c.terminal !== false);
  const given = columns.filter((c) => c.piped !== false);
  return {
    kind: "table",
    headers: shown.map((c) => c.header),
    keys: given.map((c) => c.key),
    raw: rows.map((row) => given.map((c) => c.value(row))),
    // Cleaned before display functions paint it: data carries no colour or cursor codes of its own.
    display: (paint) =>
      withoutControls(rows).map((row) =>
        shown.map((c) => (c.display ? c.display(row, paint) : cellText(c.value(row)))),
      ),
    piped: (paint) => {
      const clean = withoutControls(rows);
      return rows.map((row, i) => given.map((c) => pipedCell(c, row, clean[i] as Row, paint)));
    },
    ids: rows.flatMap((row) => (options.ids ? [options.ids(row)] : idOf(row))),
    empty: options.empty ?? "Nothing to show.",
  };
}

/**
 * One resource shown as aligned "Label  value" lines; `ids` are what --quiet prints, by default
 * the resource's own `id`.
 */
export function recordView<T>(data: T, fields: Column<T>[], ids: string[] = idOf(data)): View {
  const shown = fields.filter((f) => f.terminal !== false);
  const given = fields.filter((f) => f.piped !== false);
  return {
    kind: "record",
    labels: shown.map((f) => f.header),
    keys: given.map((f) => f.key),
    raw: given.map((f) => f.value(data)),
    display: (paint) => {
      const clean = withoutControls(data);
      return shown.map((f) => (f.display ? f.display(clean, paint) : cellText(f.value(clean))));
    },
    piped: (paint) => {
      const clean = withoutControls(data);
      return given.map((f) => pipedCell(f, data, clean, paint));
    },
    ids,
  };
}

/** Several views one after another, each under an optional title. */
export function stackView(...parts: StackPart[]): View {
  return { kind: "stack", parts };
}

/** Free text for people (the same at a terminal and piped, colour aside). */
export function textView(text: (paint: Paint) => string, ids: string[] = []): View {
  return { kind: "text", text, ids };
}
