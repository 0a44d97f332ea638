import type { GroupSpec, OptionSpec } from "../../command-spec.js";

/** The database an admin command works on: the one `reseller serve` was given. */
const databaseOptions: OptionSpec[] = [
  { flags: "--db <file>", description: "the service's SQLite database file" },
  {
    flags: "--database <url>",
    description:
      "the service's PostgreSQL database (postgres://user:pass@host/db; default: DATABASE_URL)",
  },
];

export const adminCommands: GroupSpec = {
  name: "admin",
  summary: "Operator commands that work on a service's database directly",
  commands: [
    {
      name: "resellers",
      summary: "Manage reseller accounts",
      commands: [
        {
          name: "create",
          summary: "Create a reseller account and print its first token (shown once)",
          options: [
            ...databaseOptions,
            { flags: "--name <name>", description: "the reseller's name" },
          ],
          examples: [
            "reseller admin resellers create --db reseller.db --name 'Acme Agency'",
            "reseller admin resellers create --database postgres://reseller@db.internal/reseller --name 'Acme Agency'",
          ],
          handler: "admin/resellers-create",
        },
      ],
    },
    {
      name: "migrate",
      summary: "Apply the database migrations this version has and the database lacks",
      description:
        "`serve` migrates at start too (under a lock on PostgreSQL, so instances starting together migrate once); this applies them ahead of a rolling upgrade. Prints the migrations applied, or that the database is already current.",
      options: databaseOptions,
      examples: [
        "reseller admin migrate --database postgres://reseller@db.internal/reseller",
        "reseller admin migrate --db reseller.db --json",
      ],
      handler: "admin/migrate",
    },
    {
      name: "copy",
      summary: "Move a SQLite deployment into an empty PostgreSQL database, counts verified",
      description:
        "Stop `serve` on the SQLite file first (a backup of a running one is fine). Refuses a target (exit 5) when any of its tables holds rows, before changing it; then migrates it, copies every table in one transaction (a failure leaves the target empty), moves the id sequences past the copied ids and compares every table's row count on both sides (exit 1 when one differs; nothing is kept then). Tokens keep working. The file is only read.",
      options: [
        { flags: "--from <file>", description: "the SQLite database file `serve --db` used" },
        {
          flags: "--to <url>",
          description:
            "an empty PostgreSQL database (postgres://user:pass@host/db); required, DATABASE_URL is not used",
        },
        {
          flags: "--database <url>",
          description: "the same as --to, as other admin commands name it",
        },
      ],
      examples: [
        "reseller admin copy --from reseller.db --to postgres://reseller@db.internal/reseller",
        "reseller admin copy --from reseller.db --to postgres://reseller@db.internal/reseller --json",
      ],
      handler: "admin/copy",
    },
  ],
};
