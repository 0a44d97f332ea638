import {
  type UsageMeta,
  UsageResponse,
  type WorkspaceMonthUsage,
} from "../../../contract/usage.js";
import { paging } from "../../../contract/vocabulary.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { pagingOptions, stringOption } from "../../options.js";
import { count, counted } from "../../output/counts.js";
import { tableView } from "../../output/view.js";
import { pageNote } from "../../paged-list.js";

/** `reseller usage [--month YYYY-MM]`: one row per workspace, totals on stderr. */
export const run: Handler = async (ctx, { options }) => {
  const month = stringOption(options, "month");
  if (month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw usageError(`--month expects YYYY-MM such as 2026-11; got '${month}'.`);
  }
  const client = await ctx.client();
  const { page, perPage, all } = pagingOptions(options);
  // A bill covers every workspace: every page unless --page asks for one (--all is the default).
  const onePage = !all && options.page !== undefined;
  const data: WorkspaceMonthUsage[] = [];
  const raw: unknown[] = [];
  let meta: UsageMeta | undefined;
  let note: string | undefined;
  if (onePage) {
    const response = await client.get("/api/v1/usage", UsageResponse, {
      month,
      page,
      per_page: perPage,
    });
    meta = response.body.meta;
    data.push(...response.body.data);
    raw.push(...(response.raw.data as unknown[]));
    note = pageNote(meta.pagination, "workspaces");
  } else {
    for await (const response of client.pages("/api/v1/usage", UsageResponse, {
      month,
      per_page: options.perPage === undefined ? paging.maxPerPage : perPage,
    })) {
      meta ??= response.body.meta;
      data.push(...response.body.data);
      raw.push(...(response.raw.data as unknown[]));
    }
  }
  if (meta === undefined) throw new Error("the usage report answered no page");
  const m = (w: WorkspaceMonthUsage) => w.messages;
  type Category = "marketing" | "utility" | "authentication";
  const sentBy = (category: Category, header: string) => ({
    header,
    key: `${category}_sent`,
    value: (w: WorkspaceMonthUsage) => m(w)[category].sent,
  });
  // A category's delivered, read and failed: in CSV and piped output, not the terminal's table.
  const outcomesBy = (category: Category) =>
    (["delivered", "read", "failed"] as const).map((outcome) => ({
      header: outcome,
      key: `${category}_${outcome}`,
      value: (w: WorkspaceMonthUsage) => m(w)[category][outcome],
      terminal: false as const,
    }));
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
      sentBy("marketing", "Marketing"),
      sentBy("utility", "Utility"),
      sentBy("authentication", "Auth"),
      { header: "Contacts", key: "contacts", value: (w) => w.contacts },
      { header: "Templates", key: "active_templates", value: (w) => w.active_templates },
      // After the columns scripts already read by position: new ones only ever go last.
      ...outcomesBy("marketing"),
      ...outcomesBy("utility"),
      ...outcomesBy("authentication"),
    ],
    { empty: `No workspaces in ${meta.month}.`, ids: (w) => w.workspace_id },
  );
  const totals = meta.totals;
  return {
    data: raw,
    view,
    message: `${note ? `${note}\n` : ""}${meta.month}: ${counted(totals.workspaces, "workspace")}, ${counted(totals.messages.total.sent, "message")} sent (${count(totals.messages.marketing.sent)} marketing, ${count(totals.messages.utility.sent)} utility, ${count(totals.messages.authentication.sent)} authentication), ${counted(totals.contacts, "contact")}.`,
  };
};
