import { csvPresets } from "../../../contract/csv-layouts.js";
import { csvEncodings } from "../../../contract/csv-options.js";
import { duplicateHandlings, optInStatuses } from "../../../contract/vocabulary.js";
import type { GroupSpec, OptionSpec } from "../../command-spec.js";

const contactArgument = { name: "id", description: "the contact's id (ct_…)" };

/** How a CSV file is read: `contacts import` and `workspaces onboard --import` take the same. */
export const csvReadingOptions: OptionSpec[] = [
  {
    flags: "--map <header=field>",
    description:
      'read a column as a field, e.g. "Phone 1 - Value=phone", "Notes=custom.notes", "Labels=" to ignore (repeat for several)',
    repeatable: true,
  },
  {
    flags: "--preset <export>",
    description: "the mapping of a known export (--map wins for the columns and fields it names)",
    choices: csvPresets,
  },
  {
    flags: "--delimiter <separator>",
    description: "the separator: , ; | or tab (default: detected from the header row)",
  },
  {
    flags: "--encoding <encoding>",
    description: `the file's encoding: ${csvEncodings.join(", ")} (default utf-8; a UTF-16 mark is detected)`,
  },
];

/** Fields shared by `contacts upsert` and `contacts update`. */
const fieldOptions: OptionSpec[] = [
  { flags: "--first-name <name>", description: "first name" },
  { flags: "--last-name <name>", description: "last name" },
  { flags: "--email <email>", description: "email address" },
  {
    flags: "--tag <tag>",
    description: "a tag (repeat for several); replaces the contact's tags",
    repeatable: true,
  },
  {
    flags: "--field <key=value>",
    description: "a custom field (repeat for several); merged into the contact's fields",
    repeatable: true,
  },
  {
    flags: "--opt-in-source <text>",
    description: "where the consent came from, e.g. 'checkout form'",
  },
  {
    flags: "--opted-in-at <time>",
    description: "when consent was given (ISO 8601), if not now",
  },
];

const contactCommands: GroupSpec = {
  name: "contacts",
  summary: "Manage a workspace's contacts: list, search, upsert, import and export CSV",
  commands: [
    {
      name: "list",
      summary: "List contacts, newest first; search by name, email or phone",
      description:
        "Every word of --search must start a word of the name or email, the whole email address, or the phone's digits (`anna schm`, `anna.schmidt@ex`, `+49151`).",
      inWorkspace: true,
      paged: true,
      options: [
        { flags: "--search <text>", description: "words that start a name, email or phone" },
        { flags: "--tag <tag>", description: "only contacts with this tag" },
        {
          flags: "--opt-in-status <status>",
          description: "only contacts with this consent status",
          choices: optInStatuses,
        },
      ],
      examples: [
        "reseller contacts list -w ws_01JD3F",
        "reseller contacts list --search 'anna schmidt'",
        "reseller contacts list --tag vip --opt-in-status opted_in --all --csv > vip.csv",
      ],
      handler: "contacts/list",
    },
    {
      name: "get",
      summary: "Show one contact with its tags, custom fields and consent",
      arguments: [contactArgument],
      inWorkspace: true,
      examples: ["reseller contacts get ct_01JD4A", "reseller contacts get ct_01JD4A --json"],
      handler: "contacts/get",
    },
    {
      name: "upsert",
      summary: "Create the contact with this phone, or update it (safe to repeat)",
      description:
        "Given fields overwrite: tags are replaced, custom fields merged. Without --opt-in a new contact is not_set and an existing one keeps its consent; opted_out is recorded with `contacts update`. At a terminal a missing --phone is asked for.",
      inWorkspace: true,
      options: [
        {
          flags: "--phone <e164>",
          description: "phone in E.164, e.g. +4915112345678 or +49 151 1234-5678 (the key)",
        },
        ...fieldOptions,
        {
          flags: "--opt-in <status>",
          description: "consent: opted_in or not_set",
          choices: ["opted_in", "not_set"],
        },
      ],
      examples: [
        "reseller contacts upsert --phone +4915112345678 --first-name Anna --tag vip --opt-in opted_in",
        "reseller contacts upsert --phone +4915112345678 --field city=Berlin --json",
      ],
      handler: "contacts/upsert",
    },
    {
      name: "update",
      summary: "Change a contact's fields or consent (opted_out included)",
      arguments: [contactArgument],
      inWorkspace: true,
      options: [
        ...fieldOptions,
        {
          flags: "--opt-in <status>",
          description: "consent: opted_in, not_set or opted_out",
          choices: optInStatuses,
        },
        { flags: "--clear-tags", description: "remove every tag" },
        {
          flags: "--remove-field <key>",
          description: "remove a custom field (repeat for several)",
          repeatable: true,
        },
      ],
      examples: [
        "reseller contacts update ct_01JD4A --opt-in opted_out",
        "reseller contacts update ct_01JD4A --tag vip --tag returning --remove-field city",
      ],
      handler: "contacts/update",
    },
    {
      name: "import",
      summary: "Import a CSV file of contacts, with progress and a summary",
      description:
        "Uploads the file, prints the import id, and waits with a progress bar until the import ends, then prints created, updated, skipped, the first row errors and the columns used and ignored. Columns (header row, any case): phone (required), first_name, last_name, email, tags (separated by , ; or |), opt_in_status (also yes/no, true/false, 1/0, ja/nein, oui/non, sí/no…), opt_in_source, opted_in_at, opted_out_at, custom.<key>; other headers are read as --map or --preset say. At a terminal, a file without a phone column (a Google Contacts, Outlook or HubSpot export) shows the mapping proposed before anything is sent. Refused rows are counted and the exit code is 0; with --strict it is 6. An empty cell leaves the field unchanged. Ctrl-C stops the waiting (exit 130), not the import, which goes on in the service; so does --timeout (exit 5). --dry-run checks the file here, with the same mapping, separator and encoding, sends nothing, and exits as the import would for its rows (0 with refused rows, 6 for them with --strict); a file the service would refuse whole is found before any request: exit 2, with the service's error_code.",
      arguments: [
        { name: "file", description: "the CSV file, or - to read it from standard input" },
      ],
      inWorkspace: true,
      options: [
        {
          flags: "--on-duplicate <action>",
          description: "an existing phone: update its fields, or skip it",
          choices: duplicateHandlings,
          default: "update",
        },
        {
          flags: "--default-country <cc>",
          description: "two-letter country of numbers written without +country, e.g. DE",
        },
        { flags: "--no-wait", description: "return once the import is queued" },
        {
          flags: "--timeout <seconds>",
          description:
            "stop waiting after this many seconds: exit 5 (import_not_finished, with the import_id in its details), the import goes on in the service (default: wait until it ends)",
        },
        {
          flags: "--errors <file>",
          description:
            "write every row error to this CSV file when the import ends (not with --no-wait)",
        },
        { flags: "--dry-run", description: "check the file locally and send nothing" },
        ...csvReadingOptions,
        {
          flags: "--strict",
          description:
            "exit 6 when any row was refused (by default the count is shown and the exit is 0; not with --no-wait); with --json the error's details start with {field: import_id, message: <id>}, then the row errors",
        },
      ],
      examples: [
        "reseller contacts import customers.csv",
        "reseller contacts import google.csv --preset google --default-country DE",
        'reseller contacts import crm.csv --map "Mobile=phone" --map "Given Name=first_name" --map "Mail=email"',
        "reseller contacts import excel.csv --delimiter ';' --encoding windows-1252 --strict",
        "reseller contacts import export.csv --on-duplicate skip --default-country DE --errors errors.csv",
        "reseller contacts import big.csv --no-wait --json | jq -r .import_id",
        "gunzip -c clients.csv.gz | reseller contacts import - --strict",
        "reseller contacts import customers.csv --dry-run",
      ],
      handler: "contacts/import",
    },
    {
      name: "imports",
      summary: "Follow contact imports",
      commands: [
        {
          name: "get",
          summary: "Show an import's status, counts and first row errors",
          description:
            "Piped, the import's fields come one per line, then each of the first row errors on a line led by `errors`: row, phone, field and message, tab-separated.",
          arguments: [{ name: "import_id", description: "the import's id (imp_…)" }],
          inWorkspace: true,
          options: [
            { flags: "--errors <file>", description: "write every row error to this CSV file" },
          ],
          examples: [
            "reseller contacts imports get imp_01JD5B",
            "reseller contacts imports get imp_01JD5B --errors errors.csv",
          ],
          handler: "contacts/imports-get",
        },
        {
          name: "list",
          summary: "List the workspace's imports, newest first",
          inWorkspace: true,
          paged: true,
          examples: ["reseller contacts imports list", "reseller contacts imports list --json"],
          handler: "contacts/imports-list",
        },
      ],
    },
    {
      name: "export",
      summary: "Write every contact as CSV in the import's layout, oldest first",
      description:
        "Walks every contact by cursor and writes CSV with the columns `contacts import` reads (custom fields as custom.<key>), so the file imports again unchanged. The pages wait in a temporary file only you can read, deleted at the end, on any error, on Ctrl-C or SIGTERM and when the terminal closes. With --json: one JSON array of the contacts as the service sends them, in the same order.",
      inWorkspace: true,
      options: [
        {
          flags: "--output <file>",
          description:
            "write to this file instead of standard output (- is standard output); written only once every contact has arrived, so a failed export leaves the file as it was",
        },
        { flags: "--tag <tag>", description: "only contacts with this tag" },
        {
          flags: "--opt-in-status <status>",
          description: "only contacts with this consent status",
          choices: optInStatuses,
        },
        {
          flags: "--bom",
          description:
            "start the CSV with a UTF-8 byte order mark, so Excel shows accents right (the import takes it off)",
        },
      ],
      examples: [
        "reseller contacts export --output contacts.csv",
        "reseller contacts export --bom --output for-excel.csv",
        "reseller contacts export --tag vip > vip.csv",
        "reseller contacts export --json > contacts.json",
      ],
      handler: "contacts/export",
    },
  ],
};

const tagCommands: GroupSpec = {
  name: "tags",
  summary: "List a workspace's contact tags",
  commands: [
    {
      name: "list",
      summary: "List tags with how many contacts have each, newest first",
      inWorkspace: true,
      paged: true,
      examples: ["reseller tags list", "reseller tags list --all --csv"],
      handler: "contacts/tags-list",
    },
  ],
};

export const contactGroups: GroupSpec[] = [contactCommands, tagCommands];
