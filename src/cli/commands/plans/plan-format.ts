import { priceWithPeriod } from "../../../contract/billing-periods.js";
import type { Feature, Plan, PlanMeta } from "../../../contract/plans.js";
import { priceDecimals } from "../../../contract/price-decimals.js";
import { ceilingText } from "../../output/counts.js";
import type { Column } from "../../output/view.js";

/** An amount with the catalogue's currency symbol: `$29`, `$4.50`, `$0.125` (the catalogue's decimals, up to 6). */
export function money(amount: number, meta: PlanMeta): string {
  const digits = Number.isInteger(amount) ? 0 : 2;
  const text = amount.toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: priceDecimals(amount, 2),
  });
  return meta.currency ? `${meta.currency.symbol}${text}` : text;
}

/** A plan's price as a pricing page shows it: `$29 / month`, `$499 once`, `Free · 14-day trial`. */
export function priceLabel(plan: Plan, meta: PlanMeta): string {
  // The service's `is_free` decides (a plan priced 0 may be a paid plan's free beta).
  if (plan.is_free) {
    return plan.trial_days ? `Free · ${plan.trial_days}-day trial` : "Free";
  }
  if (plan.price === null) return "—";
  const period = meta.billing_periods.find((p) => p.value === plan.billing_period);
  return priceWithPeriod(money(plan.price, meta), period);
}

/** The label of a billing period from the service's vocabulary. */
export function periodLabel(value: string | null, meta: PlanMeta): string {
  return meta.billing_periods.find((p) => p.value === value)?.label ?? value ?? "";
}

/** A feature's allowance in words. */
export function featureValue(feature: Feature): string {
  if (feature.type === "boolean") return "included";
  if (feature.value === null) return "";
  return ceilingText(feature.value);
}

/** Columns of a plan list. */
export function planColumns(meta: PlanMeta): Column<Plan>[] {
  return [
    { header: "Id", key: "id", value: (p) => p.id },
    {
      header: "Name",
      key: "name",
      value: (p) => p.name,
      display: (p, paint) => paint.bold(p.name),
    },
    { header: "Slug", key: "slug", value: (p) => p.slug },
    {
      header: "Period",
      key: "billing_period",
      value: (p) => p.billing_period,
      display: (p) => periodLabel(p.billing_period, meta),
    },
    { header: "Price", key: "price", value: (p) => p.price, display: (p) => priceLabel(p, meta) },
    {
      header: "Visibility",
      key: "is_public",
      value: (p) => p.is_public,
      display: (p, paint) => (p.is_public ? "public" : paint.dim("private")),
    },
    { header: "Sign-up link", key: "registration_url", value: (p) => p.registration_url },
    ...priceDetailColumns(meta),
  ];
}

/**
 * Whether a plan is free, its trial and the catalogue's currency, for scripts (piped and CSV
 * output): at a terminal the price says them (`Free · 14-day trial`, `€9.50 / month`).
 */
export function priceDetailColumns(meta: PlanMeta): Column<Plan>[] {
  return [
    { header: "Free", key: "is_free", value: (p) => p.is_free, terminal: false },
    { header: "Trial days", key: "trial_days", value: (p) => p.trial_days, terminal: false },
    {
      header: "Currency",
      key: "currency",
      value: () => meta.currency?.code ?? null,
      terminal: false,
    },
  ];
}
