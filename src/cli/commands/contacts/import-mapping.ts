import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";
import { csvColumns, fieldNamedBy, mappingFlagsText } from "../../../contract/contact-csv.js";
import { byteOrderMark, CsvDecoder, looksLikeUtf16 } from "../../../contract/csv-decoding.js";
import {
  type CsvPreset,
  csvPresets,
  guessIgnoredColumns,
  guessMapping,
  presetMapping,
  recogniseLayout,
} from "../../../contract/csv-layouts.js";
import {
  type CsvEncoding,
  type CsvMapping,
  type CsvReadOptions,
  csvEncodings,
  delimiterName,
  mappingProblem,
  mappingTargetProblem,
  parseDelimiter,
  parseEncoding,
  parseMappingFlags,
} from "../../../contract/csv-options.js";
import {
  CsvHeaderError,
  headerRowBytes,
  openContactCsv,
  readCsvHead,
} from "../../../contract/csv-reader.js";
import { ownValue } from "../../../contract/own-value.js";
import { usageError } from "../../cli-error.js";
import type { Context } from "../../context.js";
import { cannotRead } from "../../input-file.js";
import { listOption, stringOption } from "../../options.js";
import { withoutControls } from "../../output/terminal-text.js";
import { refuseIfNotUtf8 } from "./dry-run.js";

/**
 * How `contacts import` reads a file (upload and dry run alike): `--map`, `--preset`,
 * `--delimiter`, `--encoding`, and at a terminal the mapping proposed for a file without a
 * phone column, accepted or edited before anything is sent.
 */

/** The reading options the flags give, checked before any request. */
export function csvFlags(options: Readonly<Record<string, unknown>>): {
  read: CsvReadOptions;
  preset: CsvPreset | undefined;
} {
  const read: CsvReadOptions = {};
  const maps = listOption(options, "map");
  if (maps.length > 0) {
    const mapping = parseMappingFlags(maps);
    if (typeof mapping === "string") throw usageError(`${mapping}.`);
    const problem = mappingProblem(mapping);
    if (problem) throw usageError(`--map: ${problem}.`);
    read.mapping = mapping;
  }
  const delimiter = stringOption(options, "delimiter");
  if (delimiter !== undefined) {
    read.delimiter = parseDelimiter(delimiter);
    if (read.delimiter === undefined) {
      throw usageError(`--delimiter expects , ; | or tab; got '${delimiter}'.`);
    }
  }
  const encoding = stringOption(options, "encoding");
  if (encoding !== undefined) {
    read.encoding = parseEncoding(encoding);
    if (read.encoding === undefined) {
      throw usageError(`--encoding expects one of ${csvEncodings.join(", ")}; got '${encoding}'.`);
    }
  }
  const preset = stringOption(options, "preset");
  if (preset !== undefined && !(csvPresets as readonly string[]).includes(preset)) {
    throw usageError(`--preset expects one of ${csvPresets.join(", ")}; got '${preset}'.`);
  }
  return { read, preset: preset as CsvPreset | undefined };
}

async function readStart(file: string): Promise<{ head: Buffer; whole: boolean }> {
  const handle = await open(file, "r").catch((error: unknown) => {
    throw cannotRead(`'${file}'`, error);
  });
  try {
    const head = Buffer.alloc(headerRowBytes);
    const { bytesRead } = await handle.read(head, 0, headerRowBytes, 0);
    return { head: head.subarray(0, bytesRead), whole: bytesRead < headerRowBytes };
  } finally {
    await handle.close();
  }
}

/** The header row's cells, read with the file's separator and encoding (null if unreadable). */
function headerOf(head: Buffer, whole: boolean, read: CsvReadOptions): string[] | null {
  const reader = openContactCsv({ delimiter: read.delimiter, encoding: read.encoding });
  try {
    reader.feed(head, () => {});
    if (whole) reader.feed(undefined, () => {});
  } catch {
    // A header the import refuses still has cells; what is wrong with it is told later.
  }
  return reader.header;
}

function describe(mapping: CsvMapping): string {
  return Object.entries(mapping)
    .map(([header, field]) => `  ${header} → ${field ?? "(ignored)"}`)
    .join("\n");
}

/**
 * The options to send: the flags, a preset's mapping for this file's header, and, at a terminal,
 * for a file without a phone column, the proposed mapping accepted or edited column by column.
 */
export async function resolveCsvOptions(
  ctx: Context,
  file: string,
  options: Readonly<Record<string, unknown>>,
): Promise<CsvReadOptions> {
  const { read: flags, preset } = csvFlags(options);
  if (!ctx.canPrompt && preset === undefined) return flags;
  const { head, whole } = await readStart(file);
  const read = await askEncoding(ctx, head, whole, flags);
  if (preset === undefined && read.mapping !== undefined) return read;
  const cells = headerOf(head, whole, read);
  if (cells === null) return read;
  if (preset !== undefined) {
    // --map wins over the preset for the columns and the fields it names: `--preset hubspot
    // --map "Mobile Phone Number=phone"` reads the phone from that column, not from both.
    const given = read.mapping ?? {};
    const fieldsGiven = new Set(Object.values(given));
    const fromPreset = Object.entries(presetMapping(preset, cells).mapping).filter(
      ([, field]) => field === null || !fieldsGiven.has(field),
    );
    return { ...read, mapping: { ...Object.fromEntries(fromPreset), ...given } };
  }
  try {
    readCsvHead(head, whole, read);
    return await proposeLookAlikes(ctx, cells, read);
  } catch (error) {
    if (!(error instanceof CsvHeaderError) || !/no 'phone' column/.test(error.message)) return read;
  }
  // A mapping is worth asking for only if the file can be read: its first rows in the encoding
  // the import would use.
  refuseIfNotUtf8(wholeLines(head, whole), read.encoding);
  return { ...read, mapping: await proposeMapping(ctx, cells) };
}

/** The first rows up to the last whole line, so no character is cut. */
function wholeLines(head: Buffer, whole: boolean): Buffer {
  return whole ? head : head.subarray(0, head.lastIndexOf(0x0a) + 1);
}

/** The encodings offered for a file that is not UTF-8, with what they are for. */
const legacyEncodings = [
  ["windows-1252", "Excel and most programs on Windows, Western European letters"],
  ["iso-8859-1", "Latin-1, older Unix and web exports"],
] as const;
const utf16Encodings = [
  ["utf-16le", 'Excel\'s "Unicode text", most UTF-16 files'],
  ["utf-16be", "UTF-16 with the high byte first"],
] as const;

/**
 * What each offered encoding is shown with: for UTF-16 (NUL bytes between the letters) the
 * file's start, otherwise its first line holding a byte that is no UTF-8, where the choices differ.
 */
function sampleOf(lines: Buffer, utf16: boolean): Buffer {
  if (utf16) return lines.subarray(0, Math.min(lines.length, 160) & ~1);
  let from = 0;
  while (from < lines.length) {
    const end = lines.indexOf(0x0a, from);
    const line = lines.subarray(from, end === -1 ? lines.length : end);
    if (!isUtf8(line)) return line;
    if (end === -1) break;
    from = end + 1;
  }
  return lines.subarray(0, 0);
}

/**
 * At a terminal, for a file that names no encoding, has no byte order mark (which would decide)
 * and is not UTF-8 (an Excel export on Windows): asks which encoding it is in, showing a line of
 * it read in each, instead of refusing it after every other question was answered.
 */
async function askEncoding(
  ctx: Context,
  head: Buffer,
  whole: boolean,
  read: CsvReadOptions,
): Promise<CsvReadOptions> {
  if (!ctx.canPrompt || read.encoding !== undefined) return read;
  const lines = wholeLines(head, whole);
  if (byteOrderMark(lines) !== null) return read;
  // NUL bytes between the letters are UTF-16, even when every letter is ASCII (and so "UTF-8").
  const utf16 = looksLikeUtf16(lines);
  if (!utf16 && isUtf8(lines)) return read;
  // UTF-8 with a damaged byte is not another encoding: the service's refusal names the byte.
  if (!utf16) {
    const decoder = new CsvDecoder("windows-1252");
    decoder.write(lines);
    decoder.end();
    if (decoder.survey.readsAsUtf8()) return read;
  }
  const sample = sampleOf(lines, utf16);
  const shown = (encoding: CsvEncoding) => {
    const text = new CsvDecoder(encoding).write(sample).toString("utf8").split("\n")[0] ?? "";
    return withoutControls(text).trim().slice(0, 70);
  };
  ctx.info("The file is not UTF-8 text; spreadsheets often save CSV in an older encoding.");
  const encoding = await ctx.prompter.select<CsvEncoding>({
    message: "Which encoding is it in? (a line of it read in each)",
    choices: (utf16 ? utf16Encodings : legacyEncodings).map(([value, description]) => ({
      name: `${value}: ${shown(value)}`,
      value,
      description,
    })),
    default: utf16 ? "utf-16le" : "windows-1252",
  });
  return { ...read, encoding };
}

/**
 * At a terminal, for a file with a phone column: columns the import would ignore whose names
 * look like fields (`First Name`, `Opt-In Status`) are offered as those fields before sending.
 */
async function proposeLookAlikes(
  ctx: Context,
  cells: readonly string[],
  read: CsvReadOptions,
): Promise<CsvReadOptions> {
  const guesses = guessIgnoredColumns(cells, fieldNamedBy);
  if (Object.keys(guesses).length === 0) return read;
  ctx.info(
    `These columns name no field, so the import would leave them out; they look like:\n${describe(guesses)}`,
  );
  if (!(await ctx.prompter.confirm({ message: "Import them as these fields?", default: true }))) {
    return read;
  }
  const mapping: CsvMapping = {};
  for (const cell of cells) {
    mapping[cell] = ownValue(guesses, cell.trim()) ?? fieldNamedBy(cell) ?? null;
  }
  return { ...read, mapping };
}

/** Whether --map or --preset named the columns, so none were asked about. */
export function columnsNamedByFlags(options: Readonly<Record<string, unknown>>): boolean {
  return listOption(options, "map").length > 0 || stringOption(options, "preset") !== undefined;
}

/**
 * What was answered at the prompts (the encoding, the columns), said as the flags that answer
 * them, so the next file like it asks nothing; empty when nothing was asked.
 */
export function answeredLine(
  read: CsvReadOptions,
  options: Readonly<Record<string, unknown>>,
): string {
  const flags = [
    read.encoding !== undefined && stringOption(options, "encoding") === undefined
      ? `--encoding ${read.encoding}`
      : "",
    read.mapping !== undefined && !columnsNamedByFlags(options)
      ? mappingFlagsText(read.mapping)
      : "",
  ].filter((flag) => flag !== "");
  return flags.length === 0
    ? ""
    : `\nThe same file next time, without questions: ${flags.join(" ")}`;
}

/**
 * Where nothing could be asked (no terminal) and no --map or --preset was given: the ignored
 * columns that look like fields, and the flags that import them. Empty when there are none.
 */
export function lookAlikesLine(mapping: CsvMapping): string {
  const guesses = guessIgnoredColumns(
    Object.keys(mapping),
    (name) => ownValue(mapping, name) ?? null,
  );
  if (Object.keys(guesses).length === 0) return "";
  const named = Object.entries(guesses)
    .map(([header, field]) => `${header} → ${field}`)
    .join(", ");
  return `\nIgnored columns that look like fields: ${named}. To import them, add ${mappingFlagsText(guesses)}.`;
}

/** At a terminal: shows the layout found and its mapping; accepted, or edited column by column. */
async function proposeMapping(ctx: Context, cells: readonly string[]): Promise<CsvMapping> {
  const known = recogniseLayout(cells);
  // A file of no known export: its own column names (Telefon, Vorname, E-Mail) may say it.
  const guessed = known ? null : guessMapping(cells, fieldNamedBy);
  const proposed: CsvMapping = {};
  for (const cell of cells) {
    // A column that names a field keeps it (`opt_in_status` beside a `Telefon` column).
    proposed[cell] =
      ownValue(known?.mapping ?? guessed ?? {}, cell.trim()) ?? fieldNamedBy(cell) ?? null;
  }
  ctx.info(
    known
      ? `The file has no 'phone' column; it looks like ${known.title}. Proposed mapping (--preset ${known.preset}):`
      : guessed
        ? "The file has no 'phone' column; its column names suggest this mapping:"
        : "The file has no 'phone' column and is no export this CLI knows. Say which column holds what:",
  );
  if (known || guessed) ctx.info(describe(proposed));
  if (
    (known || guessed) &&
    (await ctx.prompter.confirm({ message: "Import with this mapping?", default: true }))
  ) {
    return proposed;
  }
  const fields = [...csvColumns, "custom.<key>"].join(", ");
  const edited: CsvMapping = {};
  for (const cell of cells) {
    const answer = await ctx.prompter.input({
      message: `Field for column '${cell}' (${fields}; empty to ignore)`,
      default: proposed[cell] ?? "",
      validate: (value) => mappingTargetProblem(value.trim() === "" ? null : value.trim()) ?? true,
    });
    edited[cell] = answer.trim() === "" ? null : answer.trim();
  }
  const problem = mappingProblem(edited);
  if (problem) throw usageError(`${problem}.`);
  if (!Object.values(edited).includes("phone")) {
    throw usageError("No column was mapped to phone; every contact needs one.");
  }
  return edited;
}

/** One line naming the columns an import used (header → field) and those it ignored. */
export function columnsLine(mapping: CsvMapping, delimiter?: string, encoding?: string): string {
  const used = Object.entries(mapping).filter(([, field]) => field !== null);
  const ignored = Object.entries(mapping).filter(([, field]) => field === null);
  const usedText = used.map(([h, f]) => (h === f ? h : `${h} → ${f}`)).join(", ");
  const read = [
    delimiter === undefined ? null : `separator ${delimiterName(delimiter)}`,
    encoding === undefined ? null : encoding,
  ].filter((x) => x !== null);
  return `Columns used: ${usedText || "none"}; ignored: ${ignored.map(([h]) => h).join(", ") || "none"}${read.length ? ` (${read.join(", ")})` : ""}.`;
}
