import { z } from "zod";
import { BillingPeriodValue, billingPeriods } from "./billing-periods.js";
import { successEnvelope } from "./envelope.js";

export const FeatureType = z.enum(["boolean", "limit", "quota"]);

export const Feature = z
  .object({
    key: z.string().min(1),
    name: z.string().min(1),
    type: FeatureType,
    value: z
      .number()
      .int()
      .min(-1)
      .nullable()
      .describe("Ceiling of a limit or quota; -1 means unlimited; null for a boolean feature."),
  })
  .meta({ id: "Feature" });
export type Feature = z.infer<typeof Feature>;

export const Plan = z
  .object({
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    is_public: z.boolean(),
    is_free: z.boolean(),
    trial_days: z.number().int().nullable(),
    price: z.number().nullable(),
    billing_period: BillingPeriodValue.nullable(),
    registration_url: z
      .string()
      .nullable()
      .describe("Ready-to-use sign-up link; use it verbatim. Null for a private plan."),
    features: z.array(Feature),
  })
  .meta({ id: "Plan" });
export type Plan = z.infer<typeof Plan>;

export const Currency = z
  .object({ code: z.string(), name: z.string(), symbol: z.string() })
  .meta({ id: "Currency" });
export type Currency = z.infer<typeof Currency>;

export const BillingPeriod = z
  .object({
    value: BillingPeriodValue,
    label: z.string(),
    suffix: z.string(),
    is_recurring: z.boolean(),
    months: z.number().int().positive().nullable(),
    plan_count: z.number().int().min(0),
  })
  .meta({ id: "BillingPeriod" });
export type BillingPeriod = z.infer<typeof BillingPeriod>;

export const PlanMeta = z
  .object({ currency: Currency.nullable(), billing_periods: z.array(BillingPeriod) })
  .meta({ id: "PlanMeta" });
export type PlanMeta = z.infer<typeof PlanMeta>;

/** `data` of the plan list: plans grouped under the billing periods that have any. */
export const PlansByPeriod = z
  .partialRecord(BillingPeriodValue, z.array(Plan))
  .meta({ id: "PlansByPeriod" });
export type PlansByPeriod = z.infer<typeof PlansByPeriod>;

export const PlanListResponse = successEnvelope(PlansByPeriod, PlanMeta);
export const PlanResponse = successEnvelope(Plan, PlanMeta);

/** Query of `GET /api/v1/plans`; billing_period is checked by the route for its own error code. */
export const PlanListQuery = z.object({
  // A repeated parameter arrives as an array: the route answers it as an unknown period.
  billing_period: z
    .preprocess((v) => (Array.isArray(v) ? v.join(",") : v), z.string().optional())
    .describe(`Only plans of this period: one of ${billingPeriods.join(", ")}.`),
  // A boolean, as interface.md types it, read as clients write one in a query: any case, and
  // 1/0 (Python sends True).
  include_private: z
    .preprocess(
      (v) => {
        if (typeof v !== "string") return v;
        if (/^(true|1)$/i.test(v)) return true;
        if (/^(false|0)$/i.test(v)) return false;
        return v;
      },
      z.boolean({ error: "expected true or false (or 1, 0)" }).default(false),
    )
    .describe("true (or 1, any case) also lists plans hidden from the public pricing page."),
});

export const PlanIdParams = z.object({ id: z.string().describe("The plan's integer id.") });

/** A feature as a catalogue file writes it: a boolean has no value, a limit or quota has one. */
const CatalogueFeature = Feature.superRefine((feature, ctx) => {
  if (feature.type === "boolean" && feature.value !== null) {
    ctx.addIssue({ code: "custom", path: ["value"], message: "is null for a boolean feature" });
  }
  if (feature.type !== "boolean" && feature.value === null) {
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message: `is the ceiling of a ${feature.type} feature: a whole number, -1 for unlimited`,
    });
  }
});

/** One plan as written in a `serve --plans FILE` catalogue. */
export const CatalogueEntry = z
  .object({
    name: z.string().min(1),
    slug: z
      .string()
      .regex(
        /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/,
        "lowercase letters and digits, words joined by single hyphens or underscores",
      ),
    description: z.string().nullable().default(null),
    is_public: z.boolean().default(true),
    /** Omitted: free when the price is 0 (a plan without a price, "ask us", is not). */
    is_free: z.boolean().optional(),
    // Ten years at most: a trial's end must stay a date every engine can store.
    trial_days: z.number().int().positive().max(3650).nullable().default(null),
    price: z.number().min(0).nullable().default(null),
    billing_period: BillingPeriodValue,
    features: z.array(CatalogueFeature).default([]),
  })
  .transform(({ is_free, ...plan }) => ({ ...plan, is_free: is_free ?? plan.price === 0 }))
  .refine((p) => p.trial_days === null || p.is_free, {
    message: "trial_days is set only on a free plan",
    path: ["trial_days"],
  });
export type CatalogueEntry = z.infer<typeof CatalogueEntry>;

/** The whole `--plans FILE`. */
export const CatalogueFile = z.object({
  /** null: prices without a currency, as the API's meta.currency may be. */
  currency: Currency.nullable(),
  plans: z.array(CatalogueEntry).min(1),
});
export type CatalogueFile = z.infer<typeof CatalogueFile>;
