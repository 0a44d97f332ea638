import { inTurn } from "../db/write-conflicts.js";
import { campaignControl } from "../domain/campaign-control.js";
import {
  type BatchEnd,
  blocker,
  type CampaignEngineDeps,
  CampaignMovedError,
  failCampaign,
  type LanesOpen,
  sendBatch,
  sleepFor,
  start,
} from "../domain/campaign-engine.js";
import { completeIfSettled, settleUnansweredSends } from "../domain/campaign-outcomes.js";
import { isoSeconds } from "../domain/clock.js";
import { LeaseLostError } from "./job-queue.js";
import { givesUpOn, type JobHandler, type JobResult } from "./job-runner.js";

/** A campaign's turn at sending: a batch, or why it stops before one. */
type BatchTurn =
  | { kind: "batch"; end: BatchEnd }
  | { kind: "stop"; result: JobResult }
  | { kind: "blocked"; reason: string };

interface RunCheckpoint {
  snapshotted: boolean;
}

/**
 * The `campaign.run` job: starts a scheduled or launched campaign (audience snapshot), sends it
 * in batches at the channel's throughput, and completes it once every recipient has a final
 * outcome (see completeIfSettled). Outcomes are committed as they are known (a batch's at once
 * where the provider takes idempotency keys, each answer at once where it does not), so a crash
 * at any point resumes without messaging anyone twice or forgetting anyone. A run the job runner
 * gives up on (five failing tries in a row without progress) fails the campaign with
 * `internal_error`, so no campaign stays `running` with no one sending it.
 */
export function campaignRunHandler(deps: CampaignEngineDeps): JobHandler {
  const run = campaignRun(deps);
  return async (job, ctx) => {
    try {
      return await run(job, ctx);
    } catch (error) {
      // A lost lease is no failure: another instance runs the campaign now.
      if (!(error instanceof LeaseLostError) && (await givesUpOn(deps.db, job))) {
        const { campaign_id: campaignId } = job.payload as { campaign_id: string };
        await failCampaign(deps.db, deps.clock, campaignId, "internal_error");
        // One cancelled meanwhile waited for this job to settle it: done here, as it ends.
        await campaignControl(deps.db, deps.clock, campaignId);
      }
      throw error;
    }
  };
}

/** One run of a campaign's job, as campaignRunHandler describes. */
function campaignRun(deps: CampaignEngineDeps): JobHandler {
  const batchSize = deps.batchSize ?? 500;
  const sleep = deps.sleep ?? sleepFor;
  return async (job, ctx) => {
    const { campaign_id: campaignId } = job.payload as { campaign_id: string };
    const load = () =>
      deps.db.selectFrom("campaigns").selectAll().where("id", "=", campaignId).executeTakeFirst();
    // Paused, cancelled or scheduled for later (see campaign-control.ts): wait or stop.
    const control = await campaignControl(deps.db, deps.clock, campaignId);
    if (control) return control;
    let campaign = await load();
    if (
      !campaign ||
      campaign.status === "completed" ||
      campaign.status === "failed" ||
      campaign.status === "draft"
    ) {
      return { state: "done" };
    }
    const checkpoint = job.checkpoint as RunCheckpoint | null;
    if (!checkpoint?.snapshotted) {
      const reason = await blocker(deps.db, campaign);
      if (reason) return failCampaign(deps.db, deps.clock, campaignId, reason);
      try {
        await start(deps, campaign, (trx) =>
          ctx.checkpoint(trx, { snapshotted: true } satisfies RunCheckpoint),
        );
      } catch (error) {
        if (!(error instanceof CampaignMovedError)) throw error;
        return (await campaignControl(deps.db, deps.clock, campaignId)) ?? { state: "done" };
      }
      campaign = await load();
      if (!campaign) return { state: "done" };
    }
    const channel = await deps.db
      .selectFrom("channels")
      .select("provider")
      .where("id", "=", campaign.channel_id)
      .executeTakeFirst();
    const exactlyOnce = deps.sender.exactlyOnce?.(channel?.provider ?? "sandbox") ?? true;
    // After a crash: the sends it left under way are not sent again (settleUnansweredSends).
    if (!exactlyOnce) {
      await settleUnansweredSends(deps.db, campaignId, isoSeconds(deps.clock.now()));
    }
    let backoffMs = 0;
    let progressed = false;
    // Every lane at once once Meta has answered one of this run's sends (sendEachMarked).
    const lanesOpen: LanesOpen = { open: false, unknownInARow: 0 };
    for (;;) {
      if (ctx.signal.aborted) return { state: "interrupted" };
      // One batch of the workspace at a time, here and on every instance: the month's quota a
      // batch reads must hold the messages of another campaign's batch going out meanwhile.
      // Checked in the turn, before every batch: a pause, a cancel, a suspension or a stop of
      // the service while this batch waited for its turn stops it there.
      const turn = await inTurn(
        deps.db,
        `campaign-sends:${campaign.workspace_id}`,
        async (db): Promise<BatchTurn> => {
          if (ctx.signal.aborted) return { kind: "stop", result: { state: "interrupted" } };
          const stop = await campaignControl(db, deps.clock, campaignId);
          if (stop) return { kind: "stop", result: stop };
          const reason = await blocker(db, campaign);
          if (reason) return { kind: "blocked", reason };
          return {
            kind: "batch",
            end: await sendBatch(
              { ...deps, db },
              campaign,
              batchSize,
              exactlyOnce,
              ctx.signal,
              lanesOpen,
            ),
          };
        },
      );
      if (turn.kind === "stop") return turn.result;
      if (turn.kind === "blocked")
        return failCampaign(deps.db, deps.clock, campaignId, turn.reason);
      const end = turn.end;
      if (end.kind === "empty") break;
      if (end.kind === "wait") {
        await sleep(end.waitMs, ctx.signal);
        continue;
      }
      if (end.kind === "failed") return failCampaign(deps.db, deps.clock, campaignId, end.reason);
      if (!progressed && (end.kind === "sent" || end.answered > 0)) {
        // Once per run, as its first sends went out: the job's count of claims toward giving up
        // starts over, so a campaign outliving several crashes is not failed by a passing error.
        await ctx.checkpoint(deps.db, { snapshotted: true } satisfies RunCheckpoint);
        progressed = true;
      }
      if (end.kind === "backoff") {
        // The operator's throughput or rate limit: wait longer each time, up to 30 s.
        backoffMs = Math.min(
          30_000,
          backoffMs === 0 ? (deps.backoffBaseMs ?? 1000) : backoffMs * 2,
        );
        await sleep(backoffMs, ctx.signal);
      } else {
        backoffMs = 0;
      }
    }
    // Sends whose answer was lost complete it later, when a status report or the 24 h limit
    // settles the last of them.
    await deps.db.transaction().execute((trx) => completeIfSettled(trx, deps.clock, campaignId));
    return { state: "done" };
  };
}
