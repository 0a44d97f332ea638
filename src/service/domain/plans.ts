import {
  type BillingPeriodValue,
  billingPeriods,
  billingPeriodVocabulary,
} from "../../contract/billing-periods.js";
import { quoted } from "../../contract/errors.js";
import type {
  BillingPeriod,
  CatalogueFile,
  Currency,
  Plan,
  PlanMeta,
  PlansByPeriod,
} from "../../contract/plans.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { integerKeyMax, type PlanTable } from "../db/schema.js";
import { type Clock, isoSeconds } from "./clock.js";
import { ServiceError } from "./service-error.js";

type PlanRow = Omit<PlanTable, "id"> & { id: number };

/** Where sign-up links point: `<publicUrl>/register?plan=<slug>`. */
export interface CatalogueOptions {
  publicUrl: () => string;
}

function toPlan(row: PlanRow, options: CatalogueOptions): Plan {
  const isPublic = row.is_public === 1;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    is_public: isPublic,
    is_free: row.is_free === 1,
    trial_days: row.trial_days,
    price: row.price,
    billing_period: row.billing_period as BillingPeriodValue,
    registration_url: isPublic
      ? `${options.publicUrl().replace(/\/+$/, "")}/register?plan=${encodeURIComponent(row.slug)}`
      : null,
    features: parseJson(row.features),
  };
}

/** The period vocabulary with how many plans of each the caller can see. */
function billingPeriodMeta(visible: readonly PlanRow[]): BillingPeriod[] {
  return billingPeriods.map((value) => ({
    value,
    ...billingPeriodVocabulary[value],
    plan_count: visible.filter((p) => p.billing_period === value).length,
  }));
}

async function currency(db: Db): Promise<Currency | null> {
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", "currency")
    .executeTakeFirst();
  return row ? (JSON.parse(row.value) as Currency) : null;
}

async function visiblePlans(db: Db, includePrivate: boolean): Promise<PlanRow[]> {
  let query = db.selectFrom("plans").selectAll().orderBy("position").orderBy("id");
  if (!includePrivate) query = query.where("is_public", "=", 1);
  return query.execute();
}

/** The catalogue grouped by billing period, optionally narrowed to one period. */
export async function listPlans(
  db: Db,
  options: CatalogueOptions,
  query: { billingPeriod: string | undefined; includePrivate: boolean },
): Promise<{ data: PlansByPeriod; meta: PlanMeta }> {
  const period = query.billingPeriod;
  if (period !== undefined && !(billingPeriods as readonly string[]).includes(period)) {
    // A repeated parameter arrives joined by commas (PlanListQuery): one period is taken.
    const several = period.includes(",")
      ? "billing_period takes one period; got "
      : "Unknown billing_period ";
    throw new ServiceError(
      "invalid_billing_period",
      `${several}${quoted(period)}; accepted values are ${billingPeriods.join(", ")}.`,
    );
  }
  const visible = await visiblePlans(db, query.includePrivate);
  const groups = new Map<string, Plan[]>();
  for (const row of visible) {
    if (period !== undefined && row.billing_period !== period) continue;
    const group = groups.get(row.billing_period) ?? [];
    group.push(toPlan(row, options));
    groups.set(row.billing_period, group);
  }
  // Keyed in the periods' own order (as meta.billing_periods lists them), whatever the plans' order.
  const data: PlansByPeriod = {};
  for (const key of billingPeriods) {
    const group = groups.get(key);
    if (group) data[key as BillingPeriodValue] = group;
  }
  return {
    data,
    meta: { currency: await currency(db), billing_periods: billingPeriodMeta(visible) },
  };
}

/** A plan id as a client wrote it, or null when no plan can have it (see integerKeyMax). */
export function planIdFrom(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id <= integerKeyMax ? id : null;
}

/** One plan by id, public or private; a non-numeric or unknown id is not found. */
export async function getPlan(
  db: Db,
  options: CatalogueOptions,
  rawId: string,
): Promise<{ data: Plan; meta: PlanMeta }> {
  const id = planIdFrom(rawId);
  const row =
    id === null
      ? undefined
      : await db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new ServiceError("not_found", `Plan ${quoted(rawId)} was not found.`);
  // The catalogue's meta as GET /plans gives it by default, whichever plan is fetched: a
  // pricing page's tabs must not change with the plan a link points at.
  const visible = await visiblePlans(db, false);
  return {
    data: toPlan(row, options),
    meta: { currency: await currency(db), billing_periods: billingPeriodMeta(visible) },
  };
}

/** Writes a catalogue: plans are upserted by slug, so loading the same file twice changes nothing. */
export async function loadCatalogue(db: Db, clock: Clock, file: CatalogueFile): Promise<void> {
  const now = isoSeconds(clock.now());
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("settings")
      .values({ key: "currency", value: JSON.stringify(file.currency) })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: JSON.stringify(file.currency) }))
      .execute();
    for (const [position, plan] of file.plans.entries()) {
      const values = {
        name: plan.name,
        description: plan.description,
        is_public: plan.is_public ? 1 : 0,
        is_free: plan.is_free ? 1 : 0,
        trial_days: plan.trial_days,
        price: plan.price,
        billing_period: plan.billing_period,
        features: JSON.stringify(plan.features),
        position,
        updated_at: now,
      };
      await trx
        .insertInto("plans")
        .values({ ...values, slug: plan.slug, created_at: now })
        .onConflict((oc) => oc.column("slug").doUpdateSet(values))
        .execute();
    }
  });
}

/** Whether the catalogue is empty (a fresh database). */
export async function hasPlans(db: Db): Promise<boolean> {
  return (await db.selectFrom("plans").select("id").limit(1).executeTakeFirst()) !== undefined;
}
