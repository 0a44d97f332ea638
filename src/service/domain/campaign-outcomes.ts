import { sql, type UpdateObject } from "kysely";
import type { Db } from "../db/database.js";
import type { Database } from "../db/schema.js";
import { recordCampaignEvent } from "./campaigns.js";
import { type Clock, isoSeconds } from "./clock.js";

/**
 * How recipients' outcomes settle a campaign, whoever decides them (the engine, a status
 * report, the 24 h limit of unknown outcomes, a failed campaign): its counters, its failure
 * counts by reason, and its completion.
 */

/** Counters that outcomes move, besides `queued`, in the order they are written. */
const outcomeCounters = [
  "sent",
  "delivered",
  "read",
  "failed",
  "skipped_no_consent",
  "skipped_opted_out",
] as const;

/**
 * What outcomes change in a campaign's counters. Every recipient that left the queue (`queued`,
 * `sending` or `outcome_unknown` rows) is in `settled` and in the counter of its outcome, so it
 * is counted once; the funnel moves a recipient already counted (sent → delivered → read, or
 * sent → failed with `sent: -1`).
 */
export interface CounterChange extends Partial<Record<(typeof outcomeCounters)[number], number>> {
  /** Recipients that left the queue. */
  settled: number;
  /** Recipients that failed, by reason (see addCampaignFailures). */
  failures?: ReadonlyMap<string, number>;
}

/**
 * Applies outcomes to a campaign's counters and failure counts in `trx`, and stamps the stats
 * (and with `touchCampaign` the campaign's `updated_at`) at `at`. A counter the change leaves
 * out is not written.
 */
export async function moveCampaignCounters(
  trx: Db,
  campaignId: string,
  change: CounterChange,
  at: string,
  options: { touchCampaign?: boolean } = {},
): Promise<void> {
  await trx
    .updateTable("campaigns")
    .set((eb) => {
      const moved: UpdateObject<Database, "campaigns"> = {
        queued: eb("queued", "-", change.settled),
      };
      for (const counter of outcomeCounters) {
        const n = change[counter];
        if (n !== undefined) moved[counter] = eb(counter, "+", n);
      }
      moved.stats_updated_at = at;
      if (options.touchCampaign) moved.updated_at = at;
      return moved;
    })
    .where("id", "=", campaignId)
    .execute();
  if (change.failures) await addCampaignFailures(trx, campaignId, change.failures);
}

/** Adds recipients that failed, by reason, to a campaign's failure counts (a zero adds no row). */
async function addCampaignFailures(
  trx: Db,
  campaignId: string,
  failures: ReadonlyMap<string, number>,
): Promise<void> {
  const added = [...failures].filter(([, count]) => count > 0);
  if (added.length === 0) return;
  await trx
    .insertInto("campaign_failures")
    .values(added.map(([reason, count]) => ({ campaign_id: campaignId, reason, count })))
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

/**
 * Recipients whose send to a provider without idempotency began but whose answer was never
 * recorded (a crash, a run that threw) may have been messaged: they become `outcome_unknown`,
 * never sent again by themselves, until a status webhook resolves them or the 24 h limit fails
 * them. They stay counted as queued meanwhile, so no counter moves.
 */
export async function settleUnansweredSends(
  db: Db,
  campaignId: string,
  now: string,
): Promise<void> {
  await db
    .updateTable("campaign_recipients")
    .set({ state: "outcome_unknown", updated_at: now })
    .where("campaign_id", "=", campaignId)
    .where("state", "=", "sending")
    .execute();
}
