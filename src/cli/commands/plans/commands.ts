import { billingPeriods } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";

export const planCommands: GroupSpec = {
  name: "plans",
  summary: "Browse the plan catalogue (prices for your pricing page)",
  commands: [
    {
      name: "list",
      summary: "List plans with price and billing period",
      description:
        "Piped or with --csv, each plan also says whether it is free, its trial days and the currency of its price (is_free, trial_days, currency), which a terminal shows in the price. The service sends the whole catalogue in one answer, which is shown whole (--all changes nothing, nor does --per-page alone); --page shows one page of it in the list's order, --per-page plans a page, --json then printing the service's groups with that page's plans only.",
      // Shown whole unless --page or --per-page asks for one page.
      paged: "all",
      options: [
        {
          flags: "--billing-period <period>",
          description: "only plans of this period",
          choices: billingPeriods,
        },
        {
          flags: "--include-private",
          description: "also list plans hidden from the public pricing page",
        },
      ],
      examples: [
        "reseller plans list",
        "reseller plans list --billing-period yearly --include-private",
        "reseller plans list --json | jq '.monthly[].registration_url'",
      ],
      handler: "plans/list",
    },
    {
      name: "get",
      summary: "Show one plan with its features (private plans too)",
      description:
        "Piped, one field per line with its raw value (is_free, trial_days and the catalogue's currency included); --json prints the service's record.",
      arguments: [{ name: "id", description: "the plan's id or slug" }],
      examples: ["reseller plans get 2", "reseller plans get starter-monthly --json"],
      handler: "plans/get",
    },
  ],
};
