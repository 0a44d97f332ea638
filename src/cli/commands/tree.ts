import type { CommandSpec, GroupSpec } from "../command-spec.js";
import { adminCommands } from "./admin/commands.js";
import { apiCommand } from "./api/commands.js";
import { authCommands } from "./auth/commands.js";
import { campaignGroups } from "./campaigns/commands.js";
import { completionCommand } from "./completion/commands.js";
import { contactGroups } from "./contacts/commands.js";
import { eventCommands } from "./events/commands.js";
import { listenCommand } from "./listen/commands.js";
import { planCommands } from "./plans/commands.js";
import { serveCommand } from "./serve/commands.js";
import { templateGroups } from "./templates/commands.js";
import { usageCommand } from "./usage/commands.js";
import { webhookCommands } from "./webhooks/commands.js";
import { workspaceGroups } from "./workspaces/commands.js";

/** The whole command tree, in the order help lists it. */
export const commandTree: (CommandSpec | GroupSpec)[] = [
  ...authCommands,
  planCommands,
  ...workspaceGroups,
  ...contactGroups,
  ...templateGroups,
  ...campaignGroups,
  webhookCommands,
  eventCommands,
  listenCommand,
  usageCommand,
  serveCommand,
  adminCommands,
  apiCommand,
  completionCommand,
];
