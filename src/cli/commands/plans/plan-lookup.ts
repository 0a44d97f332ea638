import { type Plan, PlanListResponse, type PlanMeta } from "../../../contract/plans.js";
import { CliError, usageError } from "../../cli-error.js";
import type { Context } from "../../context.js";

/** The whole catalogue, private plans included, in the service's order of periods. */
export async function planCatalogue(ctx: Context): Promise<{ plans: Plan[]; meta: PlanMeta }> {
  const client = await ctx.client();
  const response = await client.get("/api/v1/plans", PlanListResponse, { include_private: "true" });
  const { data, meta } = response.body;
  return { plans: meta.billing_periods.flatMap((p) => data[p.value] ?? []), meta };
}

/** How a plan no one has is reported: a plan asked for (`plans get`) or a value given for a flag. */
export type UnknownPlan = "not_found" | "invalid_flag";

/**
 * The id of the plan given by id or by slug (`starter-monthly`) among `plans` (the whole
 * catalogue). An unknown one exits as the service would have answered it: 4 (not found) for a
 * plan asked for, 6 (refused, naming the flag) for a `--plan` value.
 */
export function planIdIn(plans: readonly Plan[], given: string, unknown: UnknownPlan): string {
  const numeric = /^\d+$/.test(given);
  const plan = plans.find((p) => (numeric ? String(p.id) === given : p.slug === given));
  if (plan) return String(plan.id);
  const slugs = plans.map((p) => p.slug).join(", ");
  if (unknown === "not_found") {
    throw new CliError(
      "notFound",
      `No plan has the id or slug '${given}'.`,
      "See `reseller plans list` for the plans' ids and slugs.",
      [],
      "not_found",
    );
  }
  const message = `No plan has the ${numeric ? "id" : "slug"} '${given}'.`;
  throw new CliError(
    "refused",
    message,
    `Give a plan's id or one of: ${slugs} (see \`reseller plans list\`).`,
    [{ field: "plan", message: `expected a plan's id or slug; got '${given}'` }],
    "validation_failed",
  );
}

/** A plan given on the command line by id or slug, as the id the service takes. */
export async function planIdOf(ctx: Context, given: string, unknown: UnknownPlan): Promise<string> {
  const text = given.trim();
  if (text === "") {
    throw usageError(
      "The plan must not be empty.",
      "Give a plan id or slug from `reseller plans list`.",
    );
  }
  // An id needs no catalogue: only a slug costs the extra request.
  if (/^\d+$/.test(text)) return text;
  return planIdIn((await planCatalogue(ctx)).plans, text, unknown);
}
