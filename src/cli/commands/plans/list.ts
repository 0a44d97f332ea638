import { PlanListResponse } from "../../../contract/plans.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { tableView } from "../../output/view.js";
import { planColumns } from "./plan-format.js";

/** `reseller plans list`: every plan, grouped by period in the service's order. */
export const run: Handler = async (ctx, { options }) => {
  // Every list takes the paging flags (cli-contract.md); this one has a single page to show.
  if (options.page !== undefined || options.perPage !== undefined) {
    throw usageError(
      "plans list has no pages: the service sends the whole catalogue in one answer. Leave out --page and --per-page; --billing-period narrows it.",
    );
  }
  const client = await ctx.client();
  const response = await client.get("/api/v1/plans", PlanListResponse, {
    billing_period: stringOption(options, "billingPeriod"),
    include_private: booleanOption(options, "includePrivate") ? "true" : undefined,
  });
  const { data, meta } = response.body;
  const plans = meta.billing_periods.flatMap((period) => data[period.value] ?? []);
  return {
    data: response.raw.data,
    view: tableView(plans, planColumns(meta), { empty: "No plans match." }),
  };
};
