import { csvColumns, customColumnPrefix } from "./contact-csv.js";
import { customKeyProblem } from "./contact-rules.js";
import { ownValue } from "./own-value.js";

/**
 * How a contact CSV is to be read: which encoding, which separator, which header names which
 * field. The service's import and the CLI's `contacts import` (upload and dry run) take the same
 * options with the same words.
 */

/** Separators a file may use; detected from the header row when not given. */
export const csvDelimiters = [",", ";", "\t", "|"] as const;
export type CsvDelimiter = (typeof csvDelimiters)[number];

/** Encodings an import decodes (csv-decoding.ts); a UTF-16 byte order mark is detected. */
export const csvEncodings = [
  "utf-8",
  "windows-1252",
  "iso-8859-1",
  "utf-16le",
  "utf-16be",
] as const;
export type CsvEncoding = (typeof csvEncodings)[number];

/** `{"<header in the file>": "<field>" | "custom.<key>" | null}`; null ignores the column. */
export type CsvMapping = Record<string, string | null>;

export interface CsvReadOptions {
  mapping?: CsvMapping | undefined;
  delimiter?: CsvDelimiter | undefined;
  encoding?: CsvEncoding | undefined;
}

/** How a delimiter is written in messages, flags and docs. */
export function delimiterName(delimiter: string): string {
  return delimiter === "\t" ? "tab" : `'${delimiter}'`;
}

/** A delimiter as people type it (`;`, `tab`, `\t`, `semicolon`…), or undefined. */
export function parseDelimiter(text: string): CsvDelimiter | undefined {
  const named: Record<string, CsvDelimiter> = {
    comma: ",",
    semicolon: ";",
    tab: "\t",
    "\\t": "\t",
    pipe: "|",
  };
  const lower = text.toLowerCase();
  const namedDelimiter = ownValue(named, lower);
  if (namedDelimiter !== undefined) return namedDelimiter;
  return (csvDelimiters as readonly string[]).includes(text) ? (text as CsvDelimiter) : undefined;
}

/** An encoding as people type it (any case, `utf8`, `latin1`, `cp1252`…), or undefined. */
export function parseEncoding(text: string): CsvEncoding | undefined {
  const aliases: Record<string, CsvEncoding> = {
    utf8: "utf-8",
    cp1252: "windows-1252",
    latin1: "iso-8859-1",
    "latin-1": "iso-8859-1",
    utf16le: "utf-16le",
    utf16be: "utf-16be",
  };
  const lower = text.trim().toLowerCase();
  if ((csvEncodings as readonly string[]).includes(lower)) return lower as CsvEncoding;
  return ownValue(aliases, lower);
}

/** Why a mapping target is refused, or null: a supported column, `custom.<key>`, or null. */
export function mappingTargetProblem(target: string | null): string | null {
  if (target === null) return null;
  const lower = target.trim().toLowerCase();
  if ((csvColumns as readonly string[]).includes(lower)) return null;
  if (lower.startsWith(customColumnPrefix)) {
    return customKeyProblem(target.trim().slice(customColumnPrefix.length));
  }
  return `'${target}' is not a field: use one of ${csvColumns.join(", ")}, custom.<key>, or null to ignore the column`;
}

/** Why a whole mapping is refused (the first problem, naming its header), or null. */
export function mappingProblem(mapping: CsvMapping): string | null {
  const targets = new Map<string, string>();
  for (const [header, target] of Object.entries(mapping)) {
    if (header.trim() === "") return "mapping names an empty header";
    const problem = mappingTargetProblem(target);
    if (problem) return `mapping of '${header}': ${problem}`;
    if (target === null) continue;
    const key = target.trim().toLowerCase().startsWith(customColumnPrefix)
      ? target.trim()
      : target.trim().toLowerCase();
    const earlier = targets.get(key);
    if (earlier !== undefined) {
      return `mapping sends both '${earlier}' and '${header}' to '${key}'; map one of them to null`;
    }
    targets.set(key, header);
  }
  return null;
}

/**
 * `--map "Header=field"` flags as a mapping (`Header=` or `Header=null` ignores the column);
 * the header is what lies before the last `=`, so headers may contain `=`.
 */
export function parseMappingFlags(flags: readonly string[]): CsvMapping | string {
  const mapping: CsvMapping = {};
  for (const flag of flags) {
    const at = flag.lastIndexOf("=");
    if (at <= 0) return `--map expects "Header=field", e.g. "Phone 1 - Value=phone"; got '${flag}'`;
    const header = flag.slice(0, at).trim();
    const target = flag.slice(at + 1).trim();
    mapping[header] = target === "" || target.toLowerCase() === "null" ? null : target;
  }
  return mapping;
}
