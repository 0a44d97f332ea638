import { z } from "zod";

import { billingPeriods } from "./vocabulary.js";

export { billingPeriods };

export const BillingPeriodValue = z.enum(billingPeriods);
export type BillingPeriodValue = z.infer<typeof BillingPeriodValue>;

/** How each period reads on a pricing page; clients render from this, not from their own table. */
export const billingPeriodVocabulary: Record<
  BillingPeriodValue,
  { label: string; suffix: string; is_recurring: boolean; months: number | null }
> = {
  monthly: { label: "Monthly", suffix: "month", is_recurring: true, months: 1 },
  quarterly: { label: "Quarterly", suffix: "quarter", is_recurring: true, months: 3 },
  half_yearly: { label: "Half-yearly", suffix: "half-year", is_recurring: true, months: 6 },
  yearly: { label: "Yearly", suffix: "year", is_recurring: true, months: 12 },
  lifetime: { label: "Lifetime", suffix: "once", is_recurring: false, months: null },
};

/** A price with its period as a pricing page reads it: `$29 / month`, but `$499 once`. */
export function priceWithPeriod(
  amount: string,
  period: { suffix: string; is_recurring: boolean } | undefined,
): string {
  if (!period) return amount;
  return period.is_recurring ? `${amount} / ${period.suffix}` : `${amount} ${period.suffix}`;
}
