import type { GroupSpec } from "../../command-spec.js";

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
            { flags: "--db <file>", description: "the service's SQLite database file" },
            { flags: "--name <name>", description: "the reseller's name" },
          ],
          examples: ["reseller admin resellers create --db reseller.db --name 'Acme Agency'"],
          handler: "admin/resellers-create",
        },
      ],
    },
  ],
};
