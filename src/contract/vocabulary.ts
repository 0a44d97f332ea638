/**
 * Plain value lists of the contract, free of zod, so the CLI's command tree can offer them as
 * choices (and completions) without loading the schema library at start-up.
 */
export const billingPeriods = [
  "monthly",
  "quarterly",
  "half_yearly",
  "yearly",
  "lifetime",
] as const;
export type BillingPeriodValue = (typeof billingPeriods)[number];

export const scopes = [
  "plans:read",
  "workspaces:read",
  "workspaces:write",
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "templates:read",
  "templates:write",
] as const;
export type Scope = (typeof scopes)[number];
