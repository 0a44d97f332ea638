import { PlanListResponse } from "../../../contract/plans.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, pagingOptions, stringOption } from "../../options.js";
import { tableView } from "../../output/view.js";
import { pageNote } from "../../paged-list.js";
import { planColumns } from "./plan-format.js";

/**
 * `reseller plans list`: every plan, grouped by period in the service's order. The service sends
 * the whole catalogue in one answer; `--page` shows one page of it (in that order, `--per-page`
 * plans a page), as every list does, and `--json` then prints the service's groups with that
 * page's plans only.
 */
export const run: Handler = async (ctx, { options }) => {
  // As `usage` (paged "all"): every page unless --page asks for one, --per-page its size.
  const paged = options.page !== undefined;
  const { page, perPage } = pagingOptions(options);
  const client = await ctx.client();
  const response = await client.get("/api/v1/plans", PlanListResponse, {
    billing_period: stringOption(options, "billingPeriod"),
    include_private: booleanOption(options, "includePrivate") ? "true" : undefined,
  });
  const { data, meta } = response.body;
  const plans = meta.billing_periods.flatMap((period) => data[period.value] ?? []);
  if (!paged) {
    return {
      data: response.raw.data,
      view: tableView(plans, planColumns(meta), { empty: "No plans match." }),
    };
  }
  const shown = plans.slice((page - 1) * perPage, page * perPage);
  const ids = new Set(shown.map((plan) => plan.id));
  const raw = response.raw.data as Record<string, { id: number }[]>;
  const pageData = Object.fromEntries(
    Object.entries(raw)
      .map(([period, group]) => [period, group.filter((plan) => ids.has(plan.id))] as const)
      .filter(([, group]) => group.length > 0),
  );
  return {
    data: pageData,
    view: tableView(shown, planColumns(meta), { empty: "No plans on this page." }),
    message: pageNote(
      {
        page,
        per_page: perPage,
        total: plans.length,
        total_pages: Math.ceil(plans.length / perPage),
        next_cursor: null,
      },
      "plans",
    ),
  };
};
