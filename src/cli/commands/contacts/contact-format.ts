import type { ContactImport, ImportRowError } from "../../../contract/contact-imports.js";
import type { Contact, Tag } from "../../../contract/contacts.js";
import { count, counted } from "../../output/counts.js";
import { when } from "../../output/time.js";
import type { Column, StackPart, View } from "../../output/view.js";
import { recordView, stackView, tableView } from "../../output/view.js";

function fullName(c: Contact): string {
  return [c.first_name, c.last_name].filter((n) => n).join(" ");
}

/** Columns of a contact list; CSV headers are the wire's field names. */
export const contactColumns: Column<Contact>[] = [
  { header: "Id", key: "id", value: (c) => c.id },
  { header: "Phone", key: "phone", value: (c) => c.phone },
  { header: "First name", key: "first_name", value: (c) => c.first_name },
  { header: "Last name", key: "last_name", value: (c) => c.last_name },
  { header: "Email", key: "email", value: (c) => c.email },
  { header: "Tags", key: "tags", value: (c) => c.tags.join(",") },
  {
    header: "Opt-in",
    key: "opt_in_status",
    value: (c) => c.opt_in_status,
    display: (c, paint) => paint.status(c.opt_in_status),
  },
  {
    header: "Updated",
    key: "updated_at",
    value: (c) => c.updated_at,
    display: (c) => when(c.updated_at).slice(0, 10),
  },
];

/** The contacts of a list as a table, with a note on how to add some when there are none. */
export function contactTable(rows: readonly Contact[]): View {
  return tableView(rows, contactColumns, {
    empty:
      "No contacts match. Add one with `reseller contacts upsert` or `reseller contacts import`.",
  });
}

/** One contact: its fields, then each custom field as `custom.<key>`. */
export function contactView(contact: Contact): View {
  const fields: Column<Contact>[] = [
    { header: "Id", key: "id", value: (c) => c.id },
    { header: "Phone", key: "phone", value: (c) => c.phone, display: (c, p) => p.bold(c.phone) },
    // One line for a person; a script reads the two fields apart ("Schmidt, Anna" may be either).
    { header: "Name", key: "name", value: (c) => fullName(c), piped: false },
    { header: "First name", key: "first_name", value: (c) => c.first_name, terminal: false },
    { header: "Last name", key: "last_name", value: (c) => c.last_name, terminal: false },
    { header: "Email", key: "email", value: (c) => c.email },
    { header: "Tags", key: "tags", value: (c) => c.tags.join(",") },
    {
      header: "Opt-in",
      key: "opt_in_status",
      value: (c) => c.opt_in_status,
      display: (c, p) => p.status(c.opt_in_status),
    },
    { header: "Opt-in source", key: "opt_in_source", value: (c) => c.opt_in_source },
    {
      header: "Opted in",
      key: "opted_in_at",
      value: (c) => c.opted_in_at,
      display: (c) => when(c.opted_in_at),
    },
    {
      header: "Opted out",
      key: "opted_out_at",
      value: (c) => c.opted_out_at,
      display: (c) => when(c.opted_out_at),
    },
    ...Object.keys(contact.custom_fields)
      .sort()
      .map(
        (key): Column<Contact> => ({
          header: `custom.${key}`,
          key: `custom_fields.${key}`,
          value: (c) => c.custom_fields[key],
        }),
      ),
    {
      header: "Created",
      key: "created_at",
      value: (c) => c.created_at,
      display: (c) => when(c.created_at),
    },
    {
      header: "Updated",
      key: "updated_at",
      value: (c) => c.updated_at,
      display: (c) => when(c.updated_at),
    },
  ];
  return recordView(contact, fields);
}

export const tagColumns: Column<Tag>[] = [
  { header: "Tag", key: "name", value: (t) => t.name, display: (t, p) => p.bold(t.name) },
  {
    header: "Contacts",
    key: "contact_count",
    value: (t) => t.contact_count,
    display: (t) => t.contact_count.toLocaleString("en-US"),
  },
  {
    header: "Created",
    key: "created_at",
    value: (t) => t.created_at,
    display: (t) => when(t.created_at).slice(0, 10),
  },
];

export const errorColumns: Column<ImportRowError>[] = [
  { header: "Row", key: "row", value: (e) => e.row },
  { header: "Phone", key: "phone", value: (e) => e.phone },
  { header: "Field", key: "field", value: (e) => e.field },
  { header: "Message", key: "message", value: (e) => e.message },
];

const importFields: Column<ContactImport>[] = [
  { header: "Import", key: "import_id", value: (i) => i.import_id },
  {
    header: "Status",
    key: "status",
    value: (i) => i.status,
    display: (i, p) => p.status(i.status),
  },
  {
    header: "Rows",
    key: "processed_rows",
    value: (i) => i.processed_rows,
    display: (i) => `${count(i.processed_rows)} of ${count(i.total_rows)} read`,
  },
  { header: "Created", key: "created", value: (i) => i.created, display: (i) => count(i.created) },
  { header: "Updated", key: "updated", value: (i) => i.updated, display: (i) => count(i.updated) },
  { header: "Skipped", key: "skipped", value: (i) => i.skipped, display: (i) => count(i.skipped) },
  {
    header: "Errors",
    key: "error_count",
    value: (i) => i.error_count,
    display: (i, p) => (i.error_count > 0 ? p.bad(count(i.error_count)) : "0"),
  },
  {
    header: "Opt-outs kept",
    key: "opt_outs_kept",
    value: (i) => i.opt_outs_kept,
    display: (i) => count(i.opt_outs_kept),
  },
  { header: "On duplicate", key: "duplicate_handling", value: (i) => i.duplicate_handling },
  {
    header: "Ignored columns",
    key: "ignored_columns",
    value: (i) => i.ignored_columns.join(","),
  },
  // How the file was read, in --map's own words (`Notes=` ignores a column), to copy into a rerun.
  {
    header: "Mapping",
    key: "mapping",
    value: (i) =>
      Object.entries(i.mapping)
        .map(([column, field]) => `${column}=${field ?? ""}`)
        .join(", "),
  },
  {
    header: "Delimiter",
    key: "delimiter",
    value: (i) => delimiterCell(i.delimiter),
  },
  { header: "Encoding", key: "encoding", value: (i) => i.encoding },
  { header: "Default country", key: "default_country", value: (i) => i.default_country },
  { header: "Failure", key: "failure_reason", value: (i) => i.failure_reason },
  {
    header: "Started",
    key: "started_at",
    value: (i) => i.started_at,
    display: (i) => when(i.started_at),
  },
  {
    header: "Finished",
    key: "finished_at",
    value: (i) => i.finished_at,
    display: (i) => when(i.finished_at),
  },
];

/** How many row errors a summary shows; --errors FILE writes them all. */
export const errorsShown = 10;

/** An import: its counts, then its first row errors. */
export function importView(imported: ContactImport): View {
  const parts: StackPart[] = [{ view: recordView(imported, importFields) }];
  if (imported.errors.length > 0) {
    const shown = imported.errors.slice(0, errorsShown);
    parts.push({
      key: "errors",
      title:
        imported.error_count > shown.length
          ? `First ${shown.length} of ${count(imported.error_count)} row errors`
          : "Row errors",
      view: tableView(shown, errorColumns),
    });
  }
  return stackView(...parts);
}

/** Contact imports as a table of their first seven fields. */
export function importTable(rows: readonly ContactImport[]): View {
  return tableView(rows, importFields.slice(0, 7), { empty: "No imports yet." });
}

/**
 * The closing line of an import: what it did, and where the errors are (or the command that
 * writes them all, in `workspaceId`).
 */
export function importSummary(
  imported: ContactImport,
  errorsFile: string | undefined,
  workspaceId: string,
): string {
  const done = `${count(imported.created)} created, ${count(imported.updated)} updated, ${count(imported.skipped)} skipped, ${counted(imported.error_count, "error")}`;
  if (imported.status === "failed")
    return `Import ${imported.import_id} failed: ${imported.failure_reason ?? "unknown reason"} (${done}).`;
  if (imported.status !== "completed") {
    return `Import ${imported.import_id} is ${imported.status}: ${count(imported.processed_rows)} of ${count(imported.total_rows)} rows read. Follow it with \`reseller contacts imports get ${imported.import_id} -w ${workspaceId}\`.`;
  }
  const errors =
    imported.error_count === 0
      ? ""
      : errorsFile
        ? ` Every row error is in ${errorsFile}.`
        : ` Write every row error to a file with \`reseller contacts imports get ${imported.import_id} -w ${workspaceId} --errors FILE\`.`;
  // Consent the file asked to change and the import kept: the user should know it happened.
  const kept =
    imported.opt_outs_kept === 0
      ? ""
      : ` ${count(imported.opt_outs_kept)} ${imported.opt_outs_kept === 1 ? "row says" : "rows say"} opted_in or not_set for a contact who opted out: they are not re-subscribed (only the contact's START or \`reseller contacts update <id> --opt-in opted_in --opt-in-source …\` re-subscribes).`;
  return `Import ${imported.import_id} completed: ${done}.${kept}${errors}`;
}

/** A separator as a table or a piped line shows it: the character itself, or `tab`. */
export function delimiterCell(delimiter: string): string {
  return delimiter === "\t" ? "tab" : delimiter;
}
