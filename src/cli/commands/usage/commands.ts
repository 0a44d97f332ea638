import type { CommandSpec } from "../../command-spec.js";

/** `reseller usage [--month]`: what to bill clients from, per workspace. */
export const usageCommand: CommandSpec = {
  name: "usage",
  summary: "Monthly usage per workspace (messages by category, contacts, templates, plan)",
  description:
    "What to bill clients from: per workspace, messages sent, delivered, read and failed by template category (each in the month it was sent or failed), contacts at the month's end, templates approved at the month's end and plan; totals on stderr (--json prints the rows only; `reseller api GET /api/v1/usage` has the totals in `meta`). --csv writes one row per workspace, with each category's sent, delivered, read and failed (the terminal shows each category's sent). Every workspace by default (as --all); --page N shows one page of --per-page workspaces.",
  options: [
    { flags: "--month <yyyy-mm>", description: "the month (UTC), default the current one" },
  ],
  paged: "all",
  examples: [
    "reseller usage",
    "reseller usage --month 2026-10 --csv > usage-2026-10.csv",
    "reseller usage --json | jq '.[] | {workspace_name, sent: .messages.total.sent}'",
  ],
  handler: "usage/usage",
};
