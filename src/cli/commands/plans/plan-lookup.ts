import { type Plan, PlanListResponse, type PlanMeta } from "../../../contract/plans.js";
import type { Context } from "../../context.js";

/** The whole catalogue, private plans included, in the service's order of periods. */
export async function planCatalogue(ctx: Context): Promise<{ plans: Plan[]; meta: PlanMeta }> {
  const client = await ctx.client();
  const response = await client.get("/api/v1/plans", PlanListResponse, { include_private: "true" });
  const { data, meta } = response.body;
  return { plans: meta.billing_periods.flatMap((p) => data[p.value] ?? []), meta };
}

/**
 * The id of the plan given by id or by slug (`starter-monthly`) among `plans`. Anything else is
 * passed on as it is, for the service to refuse with its own message.
 */
export function planIdIn(plans: readonly Plan[], given: string): string {
  return String(plans.find((plan) => plan.slug === given)?.id ?? given);
}

/** A plan given on the command line by id or slug, as the id the service takes. */
export async function planIdOf(ctx: Context, given: string): Promise<string> {
  // An id needs no catalogue: only a slug costs the extra request.
  if (/^\d+$/.test(given)) return given;
  return planIdIn((await planCatalogue(ctx)).plans, given);
}
