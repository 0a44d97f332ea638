import { billingPeriodVocabulary, priceWithPeriod } from "../../contract/billing-periods.js";
import type { Currency, Plan } from "../../contract/plans.js";
import { priceDecimals } from "../../contract/price-decimals.js";
import { unstorableTexts } from "../../contract/storable-text.js";
import { isUnlimited } from "../../contract/vocabulary.js";
import type { Workspace } from "../../contract/workspaces.js";
import { CreateWorkspaceBody } from "../../contract/workspaces.js";
import type { Db } from "../db/database.js";
import { listPlans } from "../domain/plans.js";
import { allScopes, type Principal } from "../domain/tokens.js";
import { createWorkspace, type WorkspaceServices } from "../domain/workspaces.js";

/** Sign-ups one client address may make per window before it is asked to wait. */
export const signUpLimit = { max: 5, windowMs: 3_600_000 };

/** A public plan with the catalogue's currency, as the sign-up page shows it. */
export interface SignUpPlan {
  plan: Plan;
  currency: Currency | null;
}

/** Every public plan, in catalogue order, with the catalogue's currency. */
export async function publicPlans(
  db: Db,
  publicUrl: () => string,
): Promise<{ plans: Plan[]; currency: Currency | null }> {
  const { data, meta } = await listPlans(
    db,
    { publicUrl },
    { billingPeriod: undefined, includePrivate: false },
  );
  return { plans: Object.values(data).flat(), currency: meta.currency };
}

/** The public plan with this slug, or null (private and unknown plans look the same). */
export async function findPublicPlan(
  db: Db,
  publicUrl: () => string,
  slug: string,
): Promise<SignUpPlan | null> {
  const { plans, currency } = await publicPlans(db, publicUrl);
  const plan = plans.find((p) => p.slug === slug);
  return plan ? { plan, currency } : null;
}

/**
 * The reseller a public sign-up belongs to. The plan catalogue (and so every registration_url)
 * belongs to the service, not to one reseller account, so sign-ups go to the service's first
 * reseller account: the one `serve` created on the empty database, i.e. its operator.
 */
export async function signUpOwner(db: Db): Promise<{ id: string; name: string } | null> {
  const row = await db
    .selectFrom("resellers")
    .select(["id", "name"])
    .orderBy("created_at")
    .orderBy("id")
    .executeTakeFirst();
  return row ?? null;
}

/** A valid form refused all the same: too many sign-ups from its address. */
export interface SignUpRefusal {
  ok: false;
  retryAfterSeconds: number;
}

/** What a sign-up form may answer: the workspace, the fields at fault, or a refusal. */
export type SignUpOutcome =
  | { ok: true; workspace: Workspace }
  | { ok: false; errors: Record<string, string> }
  | SignUpRefusal;

/**
 * Creates the client's workspace on the plan (trial or active as the plan says) with its
 * invitation, through the same rule the API's create uses, as the sign-up owner. `mayCreate`
 * is asked only for a valid form, so a mistyped form does not spend the visitor's sign-ups.
 */
export async function signUp(
  services: WorkspaceServices,
  ownerId: string,
  plan: Plan,
  form: { business_name: string; contact_email: string; unreadable?: string[] },
  mayCreate: () => Promise<SignUpRefusal | null>,
): Promise<SignUpOutcome> {
  // Bytes that are not UTF-8 (the form's parser left such a field empty) are refused as the
  // JSON API refuses them, not stored as U+FFFD; said before what else is wrong with the field.
  const unreadable = (form.unreadable ?? []).filter(
    (field) => field === "business_name" || field === "contact_email",
  );
  if (unreadable.length > 0) {
    const label = { business_name: "The business name", contact_email: "The contact email" };
    const errors: Record<string, string> = {};
    for (const field of unreadable) {
      errors[field] =
        `${label[field as keyof typeof label]} holds bytes that are not UTF-8 text; type it again`;
    }
    return { ok: false, errors };
  }
  const body = {
    name: form.business_name,
    contact_email: form.contact_email.trim(),
    plan_id: String(plan.id),
  };
  // This form is no route, so the API validator's first check (contract/storable-text.ts) is
  // made here, before the same schema the API's create parses.
  const unstorable = unstorableTexts(body);
  const parsed = CreateWorkspaceBody.safeParse(body);
  if (unstorable.length > 0 || !parsed.success) {
    const errors: Record<string, string> = {};
    // The unstorable text first: a field's first problem is the one the form shows.
    for (const issue of [...unstorable, ...(parsed.error?.issues ?? [])]) {
      const field = issue.path[0] === "name" ? "business_name" : String(issue.path[0]);
      errors[field] ??= issue.message
        .replace(/^name/, "The business name")
        .replace(/^contact_email/, "The contact email");
    }
    return { ok: false, errors };
  }
  const refusal = await mayCreate();
  if (refusal) return refusal;
  const principal: Principal = {
    tokenId: "public-sign-up",
    resellerId: ownerId,
    workspaceId: null,
    scopes: new Set(allScopes),
    expiresAt: null,
  };
  return {
    ok: true,
    workspace: await createWorkspace(services, principal, parsed.data, "sign-up page"),
  };
}

/** The visitor's preferred locale that Intl supports, from Accept-Language; "en" otherwise. */
export function visitorLocale(acceptLanguage: string | undefined): string {
  const tags = (acceptLanguage ?? "")
    .split(",")
    .map((part) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.find((p) => p.trim().startsWith("q="));
      return { tag: tag.trim(), q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .filter((entry) => entry.tag !== "" && entry.tag !== "*" && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of tags) {
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf([tag]);
      if (supported) return supported;
    } catch {
      // A malformed tag is skipped like an unsupported one.
    }
  }
  return "en";
}

/** A plan's price for the visitor: "$29.00 / month", "29,00 $ / month", "$499.00 once", "Free", "On request". */
export function formatPrice(plan: Plan, currency: Currency | null, locale: string): string {
  // The service's `is_free` decides; a plan without a price is sold by asking, not free.
  if (plan.is_free) return "Free";
  if (plan.price === null) return "On request";
  const price = plan.price;
  let amount: string;
  try {
    amount = currency
      ? withOwnDecimals(locale, { style: "currency", currency: currency.code }, price)
      : withOwnDecimals(locale, {}, price);
  } catch {
    // A currency code Intl does not know: the catalogue's own symbol.
    amount = `${currency?.symbol ?? ""}${withOwnDecimals(locale, {}, price)}`;
  }
  return priceWithPeriod(
    amount,
    plan.billing_period ? billingPeriodVocabulary[plan.billing_period] : undefined,
  );
}

/** An amount in the locale's way, with the decimals priceDecimals gives it. */
function withOwnDecimals(
  locale: string,
  options: Intl.NumberFormatOptions,
  amount: number,
): string {
  const usual = new Intl.NumberFormat(locale, options).resolvedOptions().maximumFractionDigits ?? 0;
  const maximumFractionDigits = priceDecimals(amount, usual);
  return new Intl.NumberFormat(locale, { ...options, maximumFractionDigits }).format(amount);
}

/** A plan feature in words: "Contacts: 5,000", "Messages per month: unlimited", "API access". */
export function describeFeature(feature: Plan["features"][number], locale: string): string {
  if (feature.type === "boolean" || feature.value === null) return feature.name;
  const value = isUnlimited(feature.value)
    ? "unlimited"
    : new Intl.NumberFormat(locale).format(feature.value);
  return `${feature.name}: ${value}`;
}
