import type { Feature } from "../../../contract/plans.js";
import { PlanResponse } from "../../../contract/plans.js";
import type { Handler } from "../../command-spec.js";
import { recordView, stackView, tableView } from "../../output/view.js";
import { featureValue, periodLabel, priceDetailColumns, priceLabel } from "./plan-format.js";
import { planIdOf } from "./plan-lookup.js";

/** `reseller plans get <id>`: one plan and what it includes. */
export const run: Handler = async (ctx, { args }) => {
  const client = await ctx.client();
  // A slug, as `plans list` shows beside the id and `workspaces create --plan` takes.
  const id = await planIdOf(ctx, args[0] ?? "", "not_found");
  const response = await client.get(`/api/v1/plans/${encodeURIComponent(id)}`, PlanResponse);
  const { data: plan, meta } = response.body;
  return {
    data: response.raw.data,
    view: stackView(
      {
        view: recordView(plan, [
          { header: "Id", key: "id", value: (p) => p.id },
          {
            header: "Name",
            key: "name",
            value: (p) => p.name,
            display: (p, paint) => paint.bold(p.name),
          },
          { header: "Slug", key: "slug", value: (p) => p.slug },
          { header: "Description", key: "description", value: (p) => p.description },
          {
            header: "Price",
            key: "price",
            value: (p) => p.price,
            display: (p) => priceLabel(p, meta),
          },
          {
            header: "Period",
            key: "billing_period",
            value: (p) => p.billing_period,
            display: (p) => periodLabel(p.billing_period, meta),
          },
          {
            header: "Visibility",
            key: "is_public",
            value: (p) => p.is_public,
            display: (p) => (p.is_public ? "public" : "private"),
          },
          {
            header: "Sign-up link",
            key: "registration_url",
            value: (p) => p.registration_url,
            display: (p) => p.registration_url ?? "—",
          },
          ...priceDetailColumns(meta),
        ]),
      },
      {
        title: "Features",
        view: tableView<Feature>(
          plan.features,
          [
            { header: "Feature", key: "key", value: (f) => f.key, display: (f) => f.name },
            { header: "Type", key: "type", value: (f) => f.type },
            {
              header: "Allowance",
              key: "value",
              value: (f) => f.value,
              display: (f) => featureValue(f),
            },
          ],
          { empty: "No features listed." },
        ),
      },
    ),
  };
};
