import type { CountryCode } from "libphonenumber-js/max";
import {
  consentTimeProblem,
  contactLimits,
  customKeyProblem,
  emailPattern,
  invisibleCharacterIn,
  invisibleInEmail,
  tagProblem,
  tagSeparators,
  uniqueTags,
} from "./contact-rules.js";
import { neutraliseFormula, restoreFormula } from "./csv-formulas.js";
import { guessMapping, recogniseLayout } from "./csv-layouts.js";
import type { CsvMapping } from "./csv-options.js";
import { ownValue } from "./own-value.js";
import { normalizePhone } from "./phones.js";
import { storableCopy, unstorableTextProblem } from "./storable-text.js";
import { readTimestamp, timestampMessage } from "./timestamps.js";
import { optInStatuses } from "./vocabulary.js";

/**
 * The CSV layout of contact imports and exports, shared by the service (import job), the CLI's
 * `contacts import --dry-run` and `contacts export`, so an export imports again unchanged.
 */

/** The columns an import reads besides `custom.<key>`, in the order an export writes them. */
export const csvColumns = [
  "phone",
  "first_name",
  "last_name",
  "email",
  "tags",
  "opt_in_status",
  "opt_in_source",
  "opted_in_at",
  "opted_out_at",
] as const;
export type CsvColumn = (typeof csvColumns)[number];

/** Header prefix of custom field columns: `custom.birthday` fills custom_fields.birthday. */
export const customColumnPrefix = "custom.";

/** Where each column sits in a file's records. */
export interface CsvLayout {
  columns: Partial<Record<CsvColumn, number>>;
  custom: { key: string; index: number }[];
  /** Header names the import does not read, as written (a long one cut: shownHeader). */
  ignored: string[];
  /** Every header name (as written, a long one cut alike) and the field it fills, or null. */
  mapping: CsvMapping;
  /** Every cell a row is read from, named as a row error names it (custom ones prefixed). */
  read: { field: string; index: number }[];
  width: number;
}

/** A refused header names `mapping` when the request's mapping, not the file, is at fault. */
export type HeaderResult =
  | { ok: true; layout: CsvLayout }
  | { ok: false; message: string; field?: "mapping" };

/** A value a row error or message quotes is cut to this many characters. */
export const errorValueLength = 200;

/**
 * A value as a row error may hold it: at most 200 characters, so no cell can bloat an import,
 * and any character no database stores (contract/storable-text.ts) shown as U+FFFD.
 */
export function cutErrorValue(text: string): string {
  const cut = text.length > errorValueLength ? `${text.slice(0, errorValueLength - 1)}…` : text;
  return storableCopy(cut);
}

/**
 * A header name as an import's record shows it: whole up to 200 characters; a longer one cut,
 * with a hash of the whole name, so two long names that begin alike still show apart (the job
 * reads the file again with the record's mapping, whose keys are these).
 */
export function shownHeader(name: string): string {
  if (name.length <= errorValueLength) return storableCopy(name);
  // FNV-1a (32 bits): enough to tell apart the few long names of one header, with no import.
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  const tag = (hash >>> 0).toString(16).padStart(8, "0");
  return storableCopy(`${name.slice(0, errorValueLength - 10)}…${tag}`);
}

/** The field a header name (or a mapping's target) reads as by itself, or null for none. */
export function fieldNamedBy(target: string): string | null {
  const lower = target.trim().toLowerCase();
  if ((csvColumns as readonly string[]).includes(lower)) return lower;
  if (lower.startsWith(customColumnPrefix)) {
    const key = target.trim().slice(customColumnPrefix.length).trim();
    return customKeyProblem(key) === null ? `${customColumnPrefix}${key}` : null;
  }
  return null;
}

/** A mapping as JSON, for messages: what to send to import this file. */
export function mappingText(mapping: CsvMapping): string {
  return JSON.stringify(mapping);
}

/**
 * A mapping as `--map` flags' values (`Telefon=phone`, `Notes=` to ignore a column), what
 * parseMappingFlags in csv-options.ts reads back; a nameless column, which no flag can name, is
 * left out when it is ignored.
 */
export function mappingFlags(mapping: CsvMapping | undefined): string[] {
  return Object.entries(mapping ?? {})
    .filter(([header, field]) => header.trim() !== "" || field !== null)
    .map(([header, field]) => `${header}=${field ?? ""}`);
}

/** The same flags as a command line's words: `--map "Telefon=phone" --map "Notiz="`. */
export function mappingFlagsText(mapping: CsvMapping | undefined): string {
  return mappingFlags(mapping)
    .map((flag) => `--map ${JSON.stringify(flag)}`)
    .join(" ");
}

/**
 * Reads the header row: names trimmed and case-insensitive, each read as the field it names or
 * as `mapping` says (mapping keys match header names the same way; null ignores a column);
 * `phone` is required. A file without one that comes from a known export (Google Contacts,
 * Outlook, HubSpot) gets a message naming the export and the mapping that imports it.
 */
export function readHeader(header: readonly string[], mapping?: CsvMapping | null): HeaderResult {
  const layout: CsvLayout = {
    columns: {},
    custom: [],
    ignored: [],
    mapping: {},
    read: [],
    width: header.length,
  };
  // A key matches its header exactly first, then whatever the case: a file may hold both
  // `custom.City` and `custom.city` (custom keys keep their case), and so may its mapping. A key
  // that names one header exactly is that header's alone, never another's whatever the case.
  const rules = Object.entries(mapping ?? {}).map(([key, target]) => ({ header: key, target }));
  const exact = new Map(rules.map((rule) => [rule.header.trim(), rule]));
  const names = new Set(header.flatMap((raw) => [raw.trim(), shownHeader(raw.trim())]));
  const folded = new Map<string, (typeof rules)[number]>();
  for (const rule of rules) {
    const key = rule.header.trim().toLowerCase();
    if (!names.has(rule.header.trim()) && !folded.has(key)) folded.set(key, rule);
  }
  const used = new Set<(typeof rules)[number]>();
  const seen = new Map<string, string>();
  for (const [index, raw] of header.entries()) {
    const name = raw.trim();
    // The record (and its event) shows each header name at most 200 characters long, so no
    // single cell makes an import record large; the import's job reads the file again with the
    // record's mapping, so a mapping key matches the name or its shown form.
    const shown = shownHeader(name);
    const rule =
      exact.get(name) ??
      exact.get(shown) ??
      folded.get(name.toLowerCase()) ??
      folded.get(shown.toLowerCase());
    if (rule) used.add(rule);
    const target = rule
      ? rule.target === null
        ? null
        : fieldNamedBy(rule.target)
      : fieldNamedBy(name);
    layout.mapping[shown] = target;
    if (target === null) {
      // A nameless column (the empty cells a spreadsheet leaves after the last name) has no
      // name to list: `["", "", ""]` would only say there are commas.
      if (shown !== "") layout.ignored.push(shown);
      continue;
    }
    if (target.startsWith(customColumnPrefix)) {
      layout.custom.push({ key: target.slice(customColumnPrefix.length), index });
    } else {
      layout.columns[target as CsvColumn] = index;
    }
    const earlier = seen.get(target);
    if (earlier !== undefined) {
      // A mapping names a column by its header: it can set one of two spellings aside, not
      // one of two columns of the same name.
      const otherWay = !mapping
        ? ""
        : earlier === shown
          ? " or rename one (a mapping names a column by its header, which these two share)"
          : " or map one of them to null";
      return {
        ok: false,
        message: `the header names column '${target}' twice ('${earlier}' and '${shown}'); keep one${otherWay}`,
      };
    }
    seen.set(target, shown);
    layout.read.push({ field: target, index });
  }
  const unknown = rules.filter((rule) => !used.has(rule));
  if (unknown.length > 0) {
    const found = header.map((h) => `'${cutErrorValue(h.trim())}'`).join(", ");
    return {
      ok: false,
      field: "mapping",
      message: `the mapping names ${unknown.map((r) => `'${cutErrorValue(r.header)}'`).join(", ")}, which the header does not have (found ${found})`,
    };
  }
  if (layout.columns.phone === undefined) {
    const found = cutErrorValue(header.map((h) => `'${h.trim()}'`).join(", "));
    const known = mapping ? null : recogniseLayout(header);
    if (known) {
      return {
        ok: false,
        message: `the header has no 'phone' column: this looks like ${known.title}; import it with the mapping ${mappingText(known.mapping)} (CLI: --preset ${known.preset})${known.otherPhones.map((other) => `; if the numbers are in '${other}' instead, map it to phone and ${phoneColumnsOf(known.mapping)} to null (CLI: --preset ${known.preset} --map "${other}=phone")`).join("")}`,
      };
    }
    const guessed = mapping ? null : guessMapping(header, fieldNamedBy);
    if (guessed) {
      return {
        ok: false,
        message: `the header has no 'phone' column (found ${found}); its column names suggest the mapping ${mappingText(guessed)} (CLI: ${mappingFlagsText(guessed)})`,
      };
    }
    return {
      ok: false,
      message: `the header has no 'phone' column (found ${found || "nothing"})${mapping ? "; map the phone column to phone" : ""}${separatorHint(header)}; the first row must name the columns, e.g. phone,first_name,last_name,email,tags,opt_in_status, or a mapping must say which column holds the phone`,
    };
  }
  return { ok: true, layout };
}

/** The columns a mapping reads the phone from, quoted: `'Phone Number'`. */
function phoneColumnsOf(mapping: CsvMapping): string {
  return Object.keys(mapping)
    .filter((header) => mapping[header] === "phone")
    .map((header) => `'${header}'`)
    .join(", ");
}

/**
 * When a header cell holds another separator (`Telefon;Name, Vorname` read with `,` after a
 * tie): the separator the file may really use, said so it can be given.
 */
function separatorHint(header: readonly string[]): string {
  const other = [";", "\t", "|"].find((candidate) => header.some((h) => h.includes(candidate)));
  if (other === undefined) return "";
  const name = other === "\t" ? "tab" : `'${other}'`;
  return `; a column name holds ${name}, so the file may be separated by it: give delimiter ${name} (CLI: --delimiter ${other === "\t" ? "tab" : `'${other}'`})`;
}

/** One data row as it changes a contact; an absent (blank) cell changes nothing. */
export interface CsvContact {
  phone: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  tags?: string[];
  custom_fields?: Record<string, string>;
  opt_in_status?: (typeof optInStatuses)[number];
  opt_in_source?: string;
  opted_in_at?: string;
  opted_out_at?: string;
}

export interface RowProblem {
  field: string;
  message: string;
}

export type RowResult = { ok: true; contact: CsvContact } | { ok: false; problem: RowProblem };

export interface RowOptions {
  defaultCountry?: CountryCode | undefined;
  /** Now, to refuse consent timestamps in the future. */
  now: Date;
}

function refuse(field: string, message: string): RowResult {
  return { ok: false, problem: { field, message } };
}

/**
 * A cell's value: trimmed, the `'` an export put before a formula removed; blank is undefined.
 * What follows that `'` is kept as exported (a value starting with a tab keeps its tab, and a
 * value that is only a tab or a line break stays one).
 */
function cell(fields: readonly string[], index: number | undefined): string | undefined {
  if (index === undefined) return undefined;
  const raw = fields[index];
  if (raw === undefined) return undefined;
  const start = raw.trimStart();
  const restored = restoreFormula(start);
  if (restored !== start) return restored.trimEnd() || restored;
  const value = start.trimEnd();
  return value === "" ? undefined : value;
}

/** Google Contacts writes several values in one cell as `a ::: b`; the first is the one. */
function firstValue(value: string | undefined): string | undefined {
  if (value === undefined || !value.includes(" ::: ")) return value;
  return value.split(" ::: ")[0]?.trim() || undefined;
}

/**
 * Consent as spreadsheets say it: yes/true/1 is opted_in, no/false/0 is not_set, also in the
 * languages whose column names the import recognises (Telefon, Vorname, Prénom…), as a German
 * Excel writes TRUE as WAHR. "No" records no consent; it is not an opt-out.
 */
const optInWords: Record<string, (typeof optInStatuses)[number]> = {
  yes: "opted_in",
  y: "opted_in",
  true: "opted_in",
  "1": "opted_in",
  ja: "opted_in",
  wahr: "opted_in",
  oui: "opted_in",
  vrai: "opted_in",
  sí: "opted_in",
  sì: "opted_in",
  si: "opted_in",
  verdadero: "opted_in",
  vero: "opted_in",
  sim: "opted_in",
  verdadeiro: "opted_in",
  waar: "opted_in",
  tak: "opted_in",
  prawda: "opted_in",
  no: "not_set",
  n: "not_set",
  false: "not_set",
  "0": "not_set",
  nein: "not_set",
  falsch: "not_set",
  non: "not_set",
  faux: "not_set",
  falso: "not_set",
  não: "not_set",
  nao: "not_set",
  nee: "not_set",
  onwaar: "not_set",
  nie: "not_set",
  fałsz: "not_set",
  // Danish, Norwegian and Swedish say ja too.
  nej: "not_set",
  nei: "not_set",
};

/** The phone cell of a row as a row error quotes it (at most 200 characters), or null. */
export function phoneCellOf(fields: readonly string[], layout: CsvLayout): string | null {
  const value = firstValue(cell(fields, layout.columns.phone));
  return value === undefined ? null : cutErrorValue(value);
}

/** The first cell of a column the import reads that holds text no database stores as sent. */
function unstorableCell(
  fields: readonly string[],
  layout: CsvLayout,
): { field: string; problem: string } | null {
  for (const { field, index } of layout.read) {
    const value = fields[index];
    const problem = value === undefined ? null : unstorableTextProblem(value);
    if (problem) return { field, problem };
  }
  return null;
}

/**
 * Checks one data row against the layout: the phone (normalised to E.164), every other cell,
 * and the row's width. Returns what the row changes, or the first problem found.
 */
export function readRow(
  fields: readonly string[],
  layout: CsvLayout,
  options: RowOptions,
): RowResult {
  const { columns } = layout;
  if (fields.length > layout.width && fields.slice(layout.width).some((f) => f.trim() !== "")) {
    return refuse(
      "row",
      `has ${fields.length} cells but the header names ${layout.width} columns; quote cells that contain commas`,
    );
  }
  const unstorable = unstorableCell(fields, layout);
  if (unstorable) return refuse(unstorable.field, `${unstorable.field} ${unstorable.problem}`);
  const phone = normalizePhone(
    firstValue(cell(fields, columns.phone)) ?? "",
    options.defaultCountry,
  );
  if (!phone.ok) {
    return refuse("phone", phone.reason ? phone.message : `phone ${phone.message}`);
  }
  const contact: CsvContact = { phone: phone.e164 };

  for (const field of ["first_name", "last_name"] as const) {
    const value = cell(fields, columns[field]);
    if (value === undefined) continue;
    if (value.length > contactLimits.nameLength) {
      return refuse(field, `${field} is longer than ${contactLimits.nameLength} characters`);
    }
    contact[field] = value;
  }

  const email = firstValue(cell(fields, columns.email));
  if (email !== undefined) {
    const invisible = invisibleCharacterIn(email);
    if (invisible !== null) return refuse("email", invisibleInEmail("email", invisible));
    if (email.length > contactLimits.emailLength || !emailPattern.test(email)) {
      return refuse(
        "email",
        `email '${email.slice(0, 60)}' is not an address such as anna@example.com`,
      );
    }
    contact.email = email;
  }

  const tagCell = cell(fields, columns.tags);
  if (tagCell !== undefined) {
    const tags = uniqueTags(tagCell.split(tagSeparators)).filter((t) => t !== "");
    if (tags.length > contactLimits.tagsPerContact) {
      return refuse("tags", `a contact has at most ${contactLimits.tagsPerContact} tags`);
    }
    for (const tag of tags) {
      const problem = tagProblem(tag);
      if (problem) return refuse("tags", problem);
    }
    contact.tags = tags;
  }

  const written = cell(fields, columns.opt_in_status);
  const said = written?.normalize("NFC").toLowerCase();
  if (said !== undefined) {
    const status = ownValue(optInWords, said) ?? said;
    if (!(optInStatuses as readonly string[]).includes(status)) {
      return refuse(
        "opt_in_status",
        `opt_in_status must be one of ${optInStatuses.join(", ")}, yes/no, true/false or 1/0 (also ja/nein, oui/non, sí/no, sim/não, tak/nie and the like), or empty; got '${cutErrorValue(written ?? "")}'`,
      );
    }
    contact.opt_in_status = status as CsvContact["opt_in_status"];
  }

  const source = cell(fields, columns.opt_in_source);
  if (source !== undefined) {
    if (source.length > contactLimits.sourceLength) {
      return refuse(
        "opt_in_source",
        `opt_in_source is longer than ${contactLimits.sourceLength} characters`,
      );
    }
    contact.opt_in_source = source;
  }

  for (const field of ["opted_in_at", "opted_out_at"] as const) {
    const value = cell(fields, columns[field]);
    if (value === undefined) continue;
    const read = readTimestamp(value);
    if (read.iso === undefined) {
      return refuse(field, timestampMessage(field, read.problem, "2026-11-22T09:30:00Z"));
    }
    const time = read.iso;
    const problem = consentTimeProblem(time, options.now);
    if (problem !== null) return refuse(field, `${field} ${problem}`);
    contact[field] = time;
  }

  for (const { key, index } of layout.custom) {
    const value = cell(fields, index);
    if (value === undefined) continue;
    if (value.length > contactLimits.customFieldValueLength) {
      return refuse(
        `${customColumnPrefix}${key}`,
        `custom field values are at most ${contactLimits.customFieldValueLength} characters`,
      );
    }
    contact.custom_fields ??= {};
    contact.custom_fields[key] = value;
  }
  // A row that alone holds more than a contact may is refused here, so --dry-run finds it too;
  // with the fields a contact already has, the service checks the sum as it merges them.
  const customCount = Object.keys(contact.custom_fields ?? {}).length;
  if (customCount > contactLimits.customFieldsPerContact) {
    return refuse(
      "custom_fields",
      `a contact has at most ${contactLimits.customFieldsPerContact} custom fields; this row fills ${customCount}`,
    );
  }
  return { ok: true, contact };
}

/** The header of an export with these custom keys. */
export function exportHeader(customKeys: readonly string[]): string[] {
  return [...csvColumns, ...customKeys.map((k) => `${customColumnPrefix}${k}`)];
}

/** The fields an export row holds, in the import's layout. */
export interface ExportableContact {
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  tags: string[];
  custom_fields: Record<string, string>;
  opt_in_status: string;
  opt_in_source: string | null;
  opted_in_at: string | null;
  opted_out_at: string | null;
}

/**
 * One contact as an export row under `exportHeader(customKeys)`, formulas neutralised (a name
 * such as `=cmd|' /C calc'!A0` is written `'=cmd|…`; the import takes the `'` off again).
 */
export function exportRow(contact: ExportableContact, customKeys: readonly string[]): string[] {
  const row = [
    contact.phone,
    contact.first_name ?? "",
    contact.last_name ?? "",
    contact.email ?? "",
    contact.tags.join(","),
    contact.opt_in_status,
    contact.opt_in_source ?? "",
    contact.opted_in_at ?? "",
    contact.opted_out_at ?? "",
    ...customKeys.map((k) => ownValue(contact.custom_fields, k) ?? ""),
  ];
  return row.map(neutraliseFormula);
}
