import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import type { CampaignTable } from "../db/tables/campaigns.js";
import { audienceTaken, countAudience } from "./campaign-audience.js";
import type { Clock } from "./clock.js";
import { currentPlanId, planAllowance, planLimitExceeded } from "./plan-limits.js";
import type { WorkspaceRow } from "./workspace-access.js";

/**
 * Messages a started campaign would still send: its queued recipients once its run job took the
 * audience, its consenting audience before (a campaign launched a moment ago has taken nothing).
 */
export async function stillToSend(db: Db, row: CampaignTable): Promise<number> {
  if (await audienceTaken(db, row.id)) return row.queued;
  return (await countAudience(db, row.workspace_id, parseJson(row.audience))).with_consent;
}

/**
 * Messages the workspace's running campaigns (but `except`) are still to send: promised this
 * month's quota already, though not yet counted as sent. A paused one promises nothing: its
 * resume is checked again.
 */
async function messagesPromised(db: Db, workspaceId: string, except?: string): Promise<number> {
  const running = await db
    .selectFrom("campaigns")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("status", "=", "running")
    .execute();
  let promised = 0;
  for (const row of running) if (row.id !== except) promised += await stillToSend(db, row);
  return promised;
}

/** Messages the plan still allows this month beyond what running campaigns will send, or null without a quota. */
export async function messagesLeft(
  db: Db,
  clock: Clock,
  workspace: WorkspaceRow,
): Promise<number | null> {
  const allowance = await planAllowance(db, clock, workspace, "messages_per_month");
  if (!allowance) return null;
  const promised = await messagesPromised(db, workspace.id);
  return Math.max(0, allowance.limit - allowance.used - promised);
}

/**
 * Refuses to start `campaignId` when the month's quota cannot carry its `messages` beside what the
 * workspace's other running campaigns will still send (409 plan_limit_exceeded): otherwise the
 * campaign started last fails its recipients one by one as `quota_exceeded`.
 */
export async function requireQuotaFor(
  db: Db,
  clock: Clock,
  workspace: WorkspaceRow,
  messages: number,
  campaignId: string,
): Promise<void> {
  // The plan as it is under the caller's lock: a change committed meanwhile applies.
  const current = { id: workspace.id, plan_id: await currentPlanId(db, workspace.id) };
  const allowance = await planAllowance(db, clock, current, "messages_per_month");
  if (!allowance) return;
  // Read only when the sent messages alone leave room: most launches need no second look.
  if (allowance.used + messages > allowance.limit) throw planLimitExceeded(allowance, messages);
  const promised = await messagesPromised(db, workspace.id, campaignId);
  if (allowance.used + promised + messages > allowance.limit) {
    throw planLimitExceeded(allowance, messages, promised);
  }
}
