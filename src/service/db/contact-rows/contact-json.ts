import { sql } from "kysely";

/**
 * The contact as the API shows it, as JSON text written by the database from the stored row, one
 * expression per engine: a page then costs no JavaScript object per row and no serialisation.
 */

/**
 * The API's fields of a contact, in its order, and how each is written into JSON: `json` ones
 * hold JSON already; `text` ones are quoted and escaped; `plain` ones are quoted without escaping
 * (SQLite's json_quote was a third of a page's cost), which is safe because only the service
 * writes them, in alphabets that JSON never escapes: an id (`ct_` and base32), a phone in E.164,
 * an opt-in status and timestamps it normalised to ISO 8601.
 */
const jsonFields: Array<[string, "plain" | "text" | "json", "null" | "not null"]> = [
  ["id", "plain", "not null"],
  ["phone", "plain", "not null"],
  ["first_name", "text", "null"],
  ["last_name", "text", "null"],
  ["email", "text", "null"],
  ["tags", "json", "not null"],
  ["custom_fields", "json", "not null"],
  ["opt_in_status", "plain", "not null"],
  ["opt_in_source", "text", "null"],
  ["opted_in_at", "plain", "null"],
  ["opted_out_at", "plain", "null"],
  ["created_at", "plain", "not null"],
  ["updated_at", "plain", "not null"],
];

/** A field's place in SQLite's format() and the value that fills it. */
function sqliteFormatted([field, kind, nullable]: (typeof jsonFields)[number]): [string, string] {
  const column = `"contacts"."${field}"`;
  if (kind === "json") return ["%s", column];
  if (kind === "text") return ["%s", `json_quote(${column})`];
  // format() writes a NULL as nothing, so a plain field that may be NULL brings its own quotes.
  if (nullable === "null") return ["%s", `coalesce('"' || ${column} || '"', 'null')`];
  return ['"%s"', column];
}

/**
 * SQLite: one format() call, which builds the text once (concatenation copies it at every
 * step). Columns are qualified: the search joins a table with columns of the same names.
 */
export const sqliteContactJson = sql<string>`${sql.raw(
  `format('{${jsonFields
    .map((field) => `"${field[0]}":${sqliteFormatted(field)[0]}`)
    .join(",")}}', ${jsonFields.map((field) => sqliteFormatted(field)[1]).join(", ")})`,
)}`;

/** A field's JSON text in PostgreSQL: to_json quotes and escapes, a NULL written as null. */
function postgresField([field, kind, nullable]: (typeof jsonFields)[number]): string {
  const column = `"contacts"."${field}"`;
  if (kind === "json") return column;
  return nullable === "null"
    ? `coalesce(to_json(${column})::text, 'null')`
    : `to_json(${column})::text`;
}

/**
 * PostgreSQL: concat() of the fields' JSON texts, compact as SQLite's and JSON.stringify's
 * (json_build_object writes `"id" : …`), so a list reads byte for byte alike on both engines.
 */
export const postgresContactJson = sql<string>`${sql.raw(
  `concat(${jsonFields
    .map((field, i) => `'${i === 0 ? "{" : ","}"${field[0]}":', ${postgresField(field)}`)
    .join(", ")}, '}')`,
)}`;
