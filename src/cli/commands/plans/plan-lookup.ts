import { type Plan, PlanListResponse, type PlanMeta } from "../../../contract/plans.js";
import { usageError } from "../../cli-error.js";
import type { Context } from "../../context.js";

/** The whole catalogue, private plans included, in the service's order of periods. */
export async function planCatalogue(ctx: Context): Promise<{ plans: Plan[]; meta: PlanMeta }> {
  const client = await ctx.client();
  const response = await client.get("/api/v1/plans", PlanListResponse, { include_private: "true" });
  const { data, meta } = response.body;
  return { plans: meta.billing_periods.flatMap((p) => data[p.value] ?? []), meta };
}

/**
 * The id of the plan given by id or by slug (`starter-monthly`) among `plans` (the whole
 * catalogue); an unknown one is a usage error naming the slugs, before any question or request.
 */
export function planIdIn(plans: readonly Plan[], given: string): string {
  const numeric = /^\d+$/.test(given);
  const plan = plans.find((p) => (numeric ? String(p.id) === given : p.slug === given));
  if (plan) return String(plan.id);
  throw usageError(
    `No plan has the ${numeric ? "id" : "slug"} '${given}'.`,
    `Give a plan's id or one of: ${plans.map((p) => p.slug).join(", ")} (see \`reseller plans list\`).`,
  );
}

/** A plan given on the command line by id or slug, as the id the service takes. */
export async function planIdOf(ctx: Context, given: string): Promise<string> {
  // An id needs no catalogue: only a slug costs the extra request.
  if (/^\d+$/.test(given)) return given;
  return planIdIn((await planCatalogue(ctx)).plans, given);
}
