import { settableWorkspaceStatuses, workspaceStatuses } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";
import { csvReadingOptions } from "../contacts/commands.js";
import { tokenCommands, workspaceTokenCommands } from "../tokens/commands.js";

const idArgument = { name: "id", description: "the workspace's id (ws_…)" };

export const workspaceCommands: GroupSpec = {
  name: "workspaces",
  summary: "Provision and manage client workspaces",
  commands: [
    {
      name: "list",
      summary: "List your client workspaces, newest first",
      options: [
        {
          flags: "--status <status>",
          description: "only workspaces in this status (archived ones are listed only so)",
          choices: workspaceStatuses,
        },
      ],
      paged: true,
      examples: [
        "reseller workspaces list",
        "reseller workspaces list --status trial --all --csv > trials.csv",
        "reseller workspaces list --json | jq -r '.[].contact_email'",
      ],
      handler: "workspaces/list",
    },
    {
      name: "create",
      summary: "Create a client workspace and send its invitation",
      description:
        "Creates a workspace: on a free plan with trial days it starts as `trial`, otherwise `active`. The invitation with a sign-up link goes to the contact email unless --no-invite. At a terminal a missing --name or --email is asked for.",
      options: [
        { flags: "--name <name>", description: "name of the workspace or client business" },
        { flags: "--email <email>", description: "contact email; receives the invitation" },
        { flags: "--plan <id>", description: "plan id or slug from `reseller plans list`" },
        { flags: "--no-invite", description: "do not send the invitation email" },
      ],
      examples: [
        "reseller workspaces create --name 'Acme Bakery' --email owner@acme.test --plan 2",
        "reseller workspaces create --name Acme --email owner@acme.test --no-invite --json",
        "reseller workspaces create",
      ],
      handler: "workspaces/create",
    },
    {
      name: "get",
      summary: "Show a workspace and its usage against its plan's limits",
      arguments: [idArgument],
      examples: ["reseller workspaces get ws_01JD3F", "reseller workspaces get ws_01JD3F --json"],
      handler: "workspaces/get",
    },
    {
      name: "update",
      summary: "Rename a workspace, change its status or plan",
      description:
        "Changes only what is given. Status accepts active or suspended; trial and archived are set by the service. Suspending asks first at a terminal, as `workspaces suspend` does, and needs --yes without one. --plan does what `workspaces plan` does.",
      arguments: [idArgument],
      options: [
        { flags: "--name <name>", description: "new name" },
        {
          flags: "--status <status>",
          description: "new status",
          choices: settableWorkspaceStatuses,
        },
        {
          flags: "--plan <plan>",
          description: "move to this plan: its id or slug from `reseller plans list`",
        },
        {
          flags: "-y, --yes",
          description:
            "with --status suspended: suspend without asking (needed without a terminal)",
        },
      ],
      examples: [
        "reseller workspaces update ws_01JD3F --name 'Acme Bakery GmbH'",
        "reseller workspaces update ws_01JD3F --status active --json",
        "reseller workspaces update ws_01JD3F --status suspended --yes",
        "reseller workspaces update ws_01JD3F --plan growth-quarterly",
      ],
      handler: "workspaces/update",
    },
    {
      name: "suspend",
      summary: "Suspend a workspace (asks first; --yes without a terminal)",
      arguments: [idArgument],
      options: [
        { flags: "-y, --yes", description: "suspend without asking (needed without a terminal)" },
      ],
      examples: [
        "reseller workspaces suspend ws_01JD3F",
        "reseller workspaces suspend ws_01JD3F --yes",
      ],
      handler: "workspaces/suspend",
    },
    {
      name: "activate",
      summary: "Make a suspended or archived workspace active",
      description:
        "Status active, as the API's PATCH sets it: a workspace in its trial (or suspended during one) becomes active with no trial end, on the plan it has.",
      arguments: [idArgument],
      examples: ["reseller workspaces activate ws_01JD3F"],
      handler: "workspaces/activate",
    },
    {
      name: "archive",
      summary: "Archive a workspace: read-only, sends nothing, its tokens stop (asks first)",
      description:
        "Archived workspaces are left out of `workspaces list` unless --status archived is given; `workspaces restore` brings one back. At a terminal it names the workspace and asks; without one it needs --yes.",
      arguments: [idArgument],
      options: [
        { flags: "-y, --yes", description: "archive without asking (needed without a terminal)" },
      ],
      examples: [
        "reseller workspaces archive ws_01JD3F",
        "reseller workspaces archive ws_01JD3F --yes",
      ],
      handler: "workspaces/archive",
    },
    {
      name: "restore",
      summary: "Restore an archived workspace: active again, its tokens work again",
      description:
        "Only an archived workspace: a suspended one exits 5 and is lifted with `workspaces activate`; an active one is left as it is (exit 0).",
      arguments: [idArgument],
      examples: ["reseller workspaces restore ws_01JD3F"],
      handler: "workspaces/restore",
    },
    {
      name: "plan",
      summary: "Move a workspace to another plan (a paid plan ends a trial)",
      description:
        "A paid plan makes a trial workspace, or one suspended because its trial ended, active. A plan whose limits are below what the workspace uses is refused (exit 5) naming each feature.",
      arguments: [
        idArgument,
        {
          name: "plan",
          description: "the plan's id or slug from `reseller plans list`",
          required: true,
        },
      ],
      examples: [
        "reseller workspaces plan ws_01JD3F 2",
        "reseller workspaces plan ws_01JD3F growth-quarterly --json",
      ],
      handler: "workspaces/plan",
    },
    {
      name: "use",
      summary: "Make a workspace the profile's default for commands inside a workspace",
      arguments: [idArgument],
      examples: [
        "reseller workspaces use ws_01JD3F",
        "reseller workspaces use ws_01JD3F --profile staging",
      ],
      handler: "workspaces/use",
    },
    {
      name: "onboard",
      summary: "Walk through a new client: workspace, plan, invitation, contacts, pricing token",
      description:
        "At a terminal asks, in turn, for the client's name, the contact email, a plan from the live catalogue (price and period shown), whether to send the invitation, a CSV file of contacts to import (optional; as `contacts import`, with progress) and whether to create a plans:read token for the client's pricing page, then creates them and prints what was created and the commands to run next. Every question has a flag (the columns of the file too: --map, --preset, as in `contacts import`); --yes takes the defaults (invitation sent, no import, no token) and asks nothing. With --yes or without a terminal --name, --email and --plan are required. A CSV file is checked (and, at a terminal, its columns mapped) before anything is created: a file the import would refuse creates nothing (exit 2). With --json: {workspace, contact_import, pricing_token}, each the service's data (null when not done), also when a later step fails (its exit code says which): nothing created is lost. Piped, the workspace's fields come first as they are, the import's and the token's under `contact_import.` and `pricing_token.` (`pricing_token.id`), each of the import's row errors on a line led by `contact_import.errors`.",
      options: [
        { flags: "--name <name>", description: "name of the client business" },
        { flags: "--email <email>", description: "contact email; receives the invitation" },
        { flags: "--plan <id>", description: "plan id or slug from `reseller plans list`" },
        { flags: "--no-invite", description: "do not send the invitation email" },
        { flags: "--import <file>", description: "import contacts from this CSV file" },
        {
          flags: "--default-country <cc>",
          description:
            "for --import: two-letter country of numbers written without +country, e.g. DE",
        },
        // The columns, separator and encoding of --import, as `contacts import` reads them.
        ...csvReadingOptions.map((o) => ({ ...o, description: `for --import: ${o.description}` })),
        {
          flags: "--pricing-token",
          description:
            "also create a plans:read workspace token for the client's pricing page (with --quiet, its secret goes to stderr)",
        },
        { flags: "-y, --yes", description: "ask nothing: take the defaults for what is not given" },
      ],
      examples: [
        "reseller workspaces onboard",
        "reseller workspaces onboard --name 'Acme Bakery' --email owner@acme.test --plan starter-monthly --import customers.csv --default-country DE --yes",
        "reseller workspaces onboard --name Acme --email o@acme.test --plan 2 --pricing-token --json | jq -r .pricing_token.token",
      ],
      handler: "workspaces/onboard",
    },
    workspaceTokenCommands,
  ],
};

/** What the command tree registers: `workspaces …` and the reseller's own `tokens …`. */
export const workspaceGroups: GroupSpec[] = [workspaceCommands, tokenCommands];
