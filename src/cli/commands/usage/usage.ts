import { UsageResponse, type WorkspaceMonthUsage } from "../../../contract/usage.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { tableView } from "../../output/view.js";
import { count } from "../workspaces/workspace-format.js";

/** `reseller usage [--month YYYY-MM]`: one row per workspace, totals on stderr. */
export const run: Handler = async (ctx, { options }) => {
  const month = stringOption(options, "month");
  if (month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw usageError(`--month expects YYYY-MM such as 2026-11; got '${month}'.`);
  }
  const client = await ctx.client();
  const response = await client.get("/api/v1/usage", UsageResponse, { month });
  const { data, meta } = response.body;
  const m = (w: WorkspaceMonthUsage) => w.messages;
  const view = tableView(
    data,
    [
      { header: "Workspace", key: "workspace_id", value: (w) => w.workspace_id },
      { header: "Name", key: "workspace_name", value: (w) => w.workspace_name },
      {
        header: "Status",
        key: "status",
        value: (w) => w.status,
        display: (w, p) => p.status(w.status),
      },
      { header: "Plan", key: "plan", value: (w) => w.plan?.slug ?? null },
      { header: "Sent", key: "sent", value: (w) => m(w).total.sent },
      { header: "Delivered", key: "delivered", value: (w) => m(w).total.delivered },
      { header: "Read", key: "read", value: (w) => m(w).total.read },
      { header: "Failed", key: "failed", value: (w) => m(w).total.failed },
      { header: "Marketing", key: "marketing_sent", value: (w) => m(w).marketing.sent },
      { header: "Utility", key: "utility_sent", value: (w) => m(w).utility.sent },
      { header: "Auth", key: "authentication_sent", value: (w) => m(w).authentication.sent },
      { header: "Contacts", key: "contacts", value: (w) => w.contacts },
      { header: "Templates", key: "active_templates", value: (w) => w.active_templates },
    ],
    { empty: `No workspaces in ${meta.month}.`, ids: (w) => w.workspace_id },
  );
  const totals = meta.totals;
  return {
    data: response.raw.data,
    view,
    message: `${meta.month}: ${count(totals.workspaces)} workspaces, ${count(totals.messages.total.sent)} messages sent (${count(totals.messages.marketing.sent)} marketing, ${count(totals.messages.utility.sent)} utility, ${count(totals.messages.authentication.sent)} authentication), ${count(totals.contacts)} contacts.`,
  };
};
