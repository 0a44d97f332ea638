import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { recordCampaignEvent } from "./campaigns.js";
import { type Clock, isoSeconds } from "./clock.js";

/**
 * How recipients' outcomes settle a campaign, whoever decides them (the engine, a status
 * report, the 24 h limit of unknown outcomes, a failed campaign): its failure counts by reason,
 * and its completion.
 */

/** Adds recipients that failed, by reason, to a campaign's failure counts. */
export async function addCampaignFailures(
  trx: Db,
  campaignId: string,
  failures: ReadonlyMap<string, number>,
): Promise<void> {
  if (failures.size === 0) return;
  await trx
    .insertInto("campaign_failures")
    .values([...failures].map(([reason, count]) => ({ campaign_id: campaignId, reason, count })))
    .onConflict((oc) =>
      oc.columns(["campaign_id", "reason"]).doUpdateSet((eb) => ({
        count: eb("campaign_failures.count", "+", eb.ref("excluded.count")),
      })),
    )
    .execute();
}

/** Recipients whose outcome is not final yet: not sent, being sent, or sent with the answer lost. */
const unsettledStates = ["queued", "sending", "outcome_unknown"];

/**
 * Completes a running campaign once every recipient has a final outcome, in `trx`: a send whose
 * answer was lost (`outcome_unknown`) keeps it running until a status report or the 24 h limit
 * decides, so `completed` always means sent + failed = the recipients with consent.
 */
export async function completeIfSettled(trx: Db, clock: Clock, campaignId: string): Promise<void> {
  const now = isoSeconds(clock.now());
  const completed = await trx
    .updateTable("campaigns")
    .set({ status: "completed", completed_at: now, updated_at: now, stats_updated_at: now })
    .where("id", "=", campaignId)
    .where("status", "=", "running")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("campaign_recipients")
            .select(sql<number>`1`.as("one"))
            .where("campaign_id", "=", campaignId)
            .where("state", "in", unsettledStates),
        ),
      ),
    )
    .executeTakeFirst();
  if (Number(completed.numUpdatedRows) > 0) {
    await recordCampaignEvent(trx, clock, campaignId, "campaign.completed");
  }
}
