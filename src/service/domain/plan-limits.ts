import type { Feature } from "../../contract/plans.js";
import { isUnlimited } from "../../contract/vocabulary.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import type { Clock } from "./clock.js";
import { ServiceError } from "./service-error.js";
import { isMetered, meteredUsage } from "./usage.js";
import type { WorkspaceRow } from "./workspace-access.js";

/** The workspace's plan as it stands now (read under the workspace's lock, a plan change's too). */
export async function currentPlanId(db: Db, workspaceId: string): Promise<number | null> {
  const row = await db
    .selectFrom("workspaces")
    .select("plan_id")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return row?.plan_id ?? null;
}

/** The features of a plan (none without a plan). */
export async function planFeatures(db: Db, planId: number | null): Promise<Feature[]> {
  if (planId === null) return [];
  const row = await db
    .selectFrom("plans")
    .select("features")
    .where("id", "=", planId)
    .executeTakeFirst();
  return row ? parseJson(row.features) : [];
}

/** A plan's ceiling for one feature and the workspace's use of it. */
export interface Allowance {
  key: string;
  limit: number;
  used: number;
}

/**
 * The workspace's allowance for a limit or quota feature, or null when its plan sets no ceiling
 * for it (no plan, a plan without that feature, or one whose value is unlimited). Batch work (imports) reads it once and
 * checks each row against `limit - used` itself.
 */
export async function planAllowance(
  db: Db,
  clock: Clock,
  workspace: Pick<WorkspaceRow, "id" | "plan_id">,
  featureKey: string,
): Promise<Allowance | null> {
  const feature = (await planFeatures(db, workspace.plan_id)).find(
    (f) => f.key === featureKey && isMetered(f),
  );
  if (!feature || feature.value === null || isUnlimited(feature.value)) return null;
  return {
    key: featureKey,
    limit: feature.value,
    used: await meteredUsage(db, clock, workspace.id, featureKey),
  };
}

/** What frees room under a metered feature through the API: contacts are never deleted. */
const freeing: Record<string, string> = {
  templates: "delete a draft or rejected template",
  messages_per_month: "wait for next month's quota",
};

/** What makes room under each metered feature. */
const roomAdvice: Record<string, string> = {
  contacts: "move the workspace to a plan with more contacts.",
  templates: `${freeing.templates}, or move the workspace to a larger plan.`,
  messages_per_month: `${freeing.messages_per_month}, or move the workspace to a larger plan.`,
};

/** What a plan change refused for usage can do instead: a plan that fits, or freeing room. */
export function planChangeAdvice(overKeys: readonly string[]): string {
  const frees = overKeys.flatMap((key) => (freeing[key] ? [freeing[key]] : []));
  const first = frees.length > 0 ? `, or first ${frees.join(" and ")}` : "";
  return `pick a plan whose limits cover this usage${first}.`;
}

/**
 * The 409 plan_limit_exceeded for a feature, with details naming its limit and usage, and what
 * the refused action needed when it needed more than one (a campaign's messages), beside what
 * running campaigns have been promised.
 */
export function planLimitExceeded(allowance: Allowance, requested = 1, promised = 0): ServiceError {
  const { key, limit, used } = allowance;
  const more = promised > 0 ? `, ${promised} more are still to be sent by running campaigns` : "";
  const needs = requested > 1 ? `; this needs ${requested}` : "";
  return new ServiceError(
    "plan_limit_exceeded",
    `The workspace's plan allows ${limit} for '${key}' and ${used} are used${more}${needs}; ${roomAdvice[key] ?? "upgrade the plan or free some capacity."}`,
    {
      details: [
        {
          field: key,
          message: `limit ${limit}, used ${used}${promised > 0 ? `, promised ${promised}` : ""}${requested > 1 ? `, requested ${requested}` : ""}`,
          limit,
          used,
          ...(promised > 0 ? { promised } : {}),
          ...(requested > 1 ? { requested } : {}),
        },
      ],
    },
  );
}

/**
 * Refuses an action that would take the workspace past its plan's ceiling for `featureKey`
 * (409 plan_limit_exceeded); `adding` is how many units the action uses.
 */
export async function enforcePlanLimit(
  db: Db,
  clock: Clock,
  workspace: Pick<WorkspaceRow, "id">,
  featureKey: string,
  adding = 1,
): Promise<void> {
  // Counted and then written in one transaction: concurrent writers of the workspace wait. The
  // plan is read under the lock, not from the caller's earlier read: a plan change that
  // committed meanwhile applies.
  await lockWorkspaceRow(db, workspace.id);
  const current = { id: workspace.id, plan_id: await currentPlanId(db, workspace.id) };
  const allowance = await planAllowance(db, clock, current, featureKey);
  if (allowance === null) return;
  if (allowance.used + adding > allowance.limit) throw planLimitExceeded(allowance, adding);
}
