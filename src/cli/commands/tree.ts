import type { CommandSpec, GroupSpec } from "../command-spec.js";
import { adminCommands } from "./admin/commands.js";
import { authCommands } from "./auth/commands.js";
import { planCommands } from "./plans/commands.js";
import { serveCommand } from "./serve/commands.js";

/** The whole command tree, in the order help lists it. */
export const commandTree: (CommandSpec | GroupSpec)[] = [
  ...authCommands,
  planCommands,
  serveCommand,
  adminCommands,
];
