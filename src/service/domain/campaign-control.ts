import { sql } from "kysely";
import type { Campaign } from "../../contract/campaigns.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import type { CampaignTable } from "../db/tables/campaigns.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import { campaignRunJob } from "../jobs/job-kinds.js";
import type { JobResult } from "../jobs/job-runner.js";
import { audienceTaken, countAudience } from "./campaign-audience.js";
import { settleUnansweredSends } from "./campaign-outcomes.js";
import { requireQuotaFor, stillToSend } from "./campaign-quota.js";
import { type CampaignServices, loadCampaign, toCampaign } from "./campaigns.js";
import { type Clock, isoSeconds } from "./clock.js";
import { recordWorkspaceEvent } from "./events.js";
import { ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor, type WorkspaceRow } from "./workspace-access.js";

/** How often a paused campaign's run job looks whether it was resumed (resume also wakes it). */
export const pausedPollMs = 60_000;

type Move = "pause" | "resume" | "cancel";

/** The statuses each move starts from; any other is a 409 campaign_state_conflict. */
const movesFrom: Record<Move, readonly string[]> = {
  pause: ["running", "scheduled"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
};

const allowedText: Record<Move, string> = {
  pause: "only a running or scheduled campaign can be paused",
  resume: "only a paused campaign can be resumed",
  cancel: "only a draft, scheduled, running or paused campaign can be cancelled",
};

function runJobPayload(campaignId: string): string {
  return JSON.stringify({ campaign_id: campaignId });
}

/** The campaign's run job that is queued or running, if any: there is at most one. */
async function activeRunJob(db: Db, campaignId: string) {
  return db
    .selectFrom("jobs")
    .select(["id", "state"])
    .where("kind", "=", campaignRunJob)
    .where("payload", "=", runJobPayload(campaignId))
    .where("state", "in", ["queued", "running"])
    .executeTakeFirst();
}

/**
 * Ends a cancelled campaign's sending: its still-queued recipients become `cancelled` and move
 * from the `queued` counter to `cancelled`. Only for a campaign no batch is in flight for (its
 * run job is not running, or is the caller), so no recipient counts as both sent and cancelled.
 * A send begun and never answered (a run that threw) may have reached Meta: it becomes
 * `outcome_unknown` (settleUnansweredSends).
 */
export async function settleCancelled(trx: Db, clock: Clock, campaignId: string): Promise<void> {
  const now = isoSeconds(clock.now());
  await settleUnansweredSends(trx, campaignId, now);
  const result = await trx
    .updateTable("campaign_recipients")
    .set({ state: "cancelled", updated_at: now })
    .where("campaign_id", "=", campaignId)
    .where("state", "=", "queued")
    .executeTakeFirst();
  const n = Number(result.numUpdatedRows);
  if (n === 0) return;
  await trx
    .updateTable("campaigns")
    .set((eb) => ({
      queued: sql<number>`CASE WHEN ${eb.ref("queued")} > ${n} THEN ${eb.ref("queued")} - ${n} ELSE 0 END`,
      cancelled: eb("cancelled", "+", n),
      stats_updated_at: now,
    }))
    .where("id", "=", campaignId)
    .execute();
}

/**
 * What the run job does about pause, resume and cancel before each batch: wait while paused
 * (or scheduled for later), settle and stop once cancelled, or null to go on sending.
 */
export async function campaignControl(
  db: Db,
  clock: Clock,
  campaignId: string,
): Promise<JobResult | null> {
  const row = await db
    .selectFrom("campaigns")
    .select(["status", "scheduled_at"])
    .where("id", "=", campaignId)
    .executeTakeFirst();
  const now = clock.now();
  if (row?.status === "paused")
    return { state: "retry", at: new Date(now.getTime() + pausedPollMs) };
  if (row?.status === "cancelled") {
    await db.transaction().execute((trx) => settleCancelled(trx, clock, campaignId));
    return { state: "done" };
  }
  if (row?.status === "scheduled" && row.scheduled_at && new Date(row.scheduled_at) > now) {
    return { state: "retry", at: new Date(row.scheduled_at) };
  }
  return null;
}

/**
 * The campaign a move applies to, in a workspace that allows the move (cancelling stops sending,
 * so a suspended workspace may cancel too; archived is read-only), or 409 when its status forbids it.
 */
async function loadForMove(
  db: Db,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
  move: Move,
): Promise<{ row: CampaignTable; workspace: WorkspaceRow }> {
  const workspace =
    move === "cancel"
      ? await loadWorkspaceForCancel(db, principal, workspaceId)
      : await loadActiveWorkspaceFor(db, principal, workspaceId);
  const row = await loadCampaign(db, workspace.id, campaignId);
  if (!movesFrom[move].includes(row.status)) {
    throw new ServiceError(
      "campaign_state_conflict",
      `Campaign '${row.id}' is ${row.status}; ${allowedText[move]}.`,
      { details: [{ field: "status", message: `is ${row.status}` }] },
    );
  }
  return { row, workspace };
}

/**
 * Applies a move in one transaction: `check` may refuse it first, the status changes only from
 * the status it was read in (a racing move's change throws MovedMeanwhile: see onFreshRead),
 * `extra` runs with it, and the event is recorded with it.
 */
async function applyMove(
  services: { db: Db; clock: Clock },
  row: CampaignTable,
  move: Move,
  to: string,
  extra: (trx: Db) => Promise<void>,
  check: (trx: Db) => Promise<void> = async () => {},
): Promise<Campaign> {
  const { db, clock } = services;
  const now = isoSeconds(clock.now());
  const campaign = await db.transaction().execute(async (trx) => {
    await check(trx);
    const updated = await trx
      .updateTable("campaigns")
      .set({
        status: to,
        updated_at: now,
        // Running means started, as a launch is: a scheduled campaign resumed past its time
        // starts now, not when its run job gets to it a moment later.
        ...(to === "running" && row.started_at === null ? { started_at: now } : {}),
        ...(to === "cancelled" ? { completed_at: now, stats_updated_at: now } : {}),
      })
      .where("id", "=", row.id)
      .where("status", "=", row.status)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return null;
    await extra(trx);
    const after = toCampaign(
      await trx
        .selectFrom("campaigns")
        .selectAll()
        .where("id", "=", row.id)
        .executeTakeFirstOrThrow(),
    );
    // A resume that sends is told as the campaign starting (again), the contract's event for
    // "it sends now" (there is no campaign.resumed). One back to its schedule gets its
    // campaign.started when its time comes (campaign-engine.ts).
    const event =
      move === "pause"
        ? "campaign.paused"
        : move === "cancel"
          ? "campaign.cancelled"
          : to === "running"
            ? "campaign.started"
            : null;
    if (event !== null) await recordWorkspaceEvent(trx, clock, row.workspace_id, event, after);
    return after;
  });
  if (!campaign) throw new MovedMeanwhile(row.id);
  return campaign;
}

/** Another move (or the run job) changed the campaign's status between its read and the update. */
class MovedMeanwhile extends Error {
  constructor(readonly campaignId: string) {
    super(`Campaign '${campaignId}' changed status meanwhile`);
  }
}

/**
 * Runs `move` (read the campaign, check the move is allowed from its status, apply it) again
 * when another move won the race between its read and its update: a cancel that lost to a pause
 * is still allowed from `paused` and must not be refused. A move the new status forbids gets
 * loadForMove's 409; after three lost races, the 409 says to read it again.
 */
async function onFreshRead(move: () => Promise<Campaign>): Promise<Campaign> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await move();
    } catch (error) {
      if (!(error instanceof MovedMeanwhile)) throw error;
      if (attempt === 3) {
        throw new ServiceError(
          "campaign_state_conflict",
          `Campaign '${error.campaignId}' changed status meanwhile; read it again.`,
        );
      }
    }
  }
}

/** Pauses a running or scheduled campaign: the batch in flight finishes, nothing more is sent. */
export async function pauseCampaign(
  services: { db: Db; clock: Clock },
  principal: Principal,
  workspaceId: string,
  campaignId: string,
): Promise<Campaign> {
  return onFreshRead(async () => {
    const { row } = await loadForMove(services.db, principal, workspaceId, campaignId, "pause");
    return applyMove(services, row, "pause", "paused", async () => {});
  });
}

/**
 * Resumes a paused campaign: running, or scheduled when its scheduled time is still ahead. Its
 * run job is woken, or queued again when it had ended, so exactly one job sends it.
 */
export async function resumeCampaign(
  services: CampaignServices,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
): Promise<Campaign> {
  const { db, clock } = services;
  const campaign = await onFreshRead(async () => {
    const { row, workspace } = await loadForMove(db, principal, workspaceId, campaignId, "resume");
    const now = clock.now();
    const toScheduled =
      row.started_at === null && row.scheduled_at !== null && new Date(row.scheduled_at) > now;
    return applyMove(
      services,
      row,
      "resume",
      toScheduled ? "scheduled" : "running",
      async (trx) => {
        const job = await activeRunJob(trx, row.id);
        if (job?.state === "queued") {
          if (!toScheduled) {
            await trx
              .updateTable("jobs")
              .set({ run_at: now.toISOString() })
              .where("id", "=", job.id)
              .execute();
          }
          return;
        }
        if (job) return;
        const id = await services.jobs.enqueue(trx, {
          kind: campaignRunJob,
          payload: { campaign_id: row.id },
          ...(toScheduled && row.scheduled_at ? { runAt: new Date(row.scheduled_at) } : {}),
        });
        if (row.started_at !== null && !toScheduled) {
          // The audience was snapshotted by the earlier job: the new one only sends what is queued.
          await trx
            .updateTable("jobs")
            .set({ checkpoint: JSON.stringify({ snapshotted: true }) })
            .where("id", "=", id)
            .execute();
        }
      },
      // The month's quota may have been used up while it was paused (another campaign, a new
      // month's launch): refused as a launch would be, under the same lock, the campaign left
      // paused, rather than its queued recipients failing one by one as quota_exceeded. One going
      // back to its schedule is not checked, as scheduling is not: its month may be another.
      async (trx) => {
        if (toScheduled) return;
        await lockWorkspaceRow(trx, workspace.id);
        await requireQuotaFor(trx, clock, workspace, await stillToSend(trx, row), row.id);
      },
    );
  });
  services.jobs.poke();
  return campaign;
}

/**
 * Cancels a campaign that has not ended. Recipients not yet sent count as `cancelled`: settled
 * here when no batch is in flight, otherwise by the run job right after its batch. A campaign
 * whose audience was never taken (a draft, a scheduled campaign, one launched a moment ago)
 * counts its consenting audience as cancelled.
 */
export async function cancelCampaign(
  services: CampaignServices,
  principal: Principal,
  workspaceId: string,
  campaignId: string,
): Promise<Campaign> {
  const { db, clock } = services;
  const campaign = await onFreshRead(async () => {
    const { row } = await loadForMove(db, principal, workspaceId, campaignId, "cancel");
    const audience = parseJson(row.audience);
    // Counted before the transaction, which on SQLite holds the one write lock: a million-contact
    // audience is not counted while every other write waits.
    const counted =
      row.audience_total === 0 ? await countAudience(db, row.workspace_id, audience) : null;
    return applyMove(services, row, "cancel", "cancelled", async (trx) => {
      const counts = (await audienceTaken(trx, row.id))
        ? null
        : (counted ?? (await countAudience(trx, row.workspace_id, audience)));
      if (counts) {
        // The stats show the audience it would have had, so cancelled + skipped = audience_total.
        await trx
          .updateTable("campaigns")
          .set({
            audience_total: counts.audience_total,
            skipped_no_consent: counts.skipped_no_consent,
            skipped_opted_out: counts.skipped_opted_out,
            cancelled: counts.with_consent,
          })
          .where("id", "=", row.id)
          .execute();
        return;
      }
      const job = await activeRunJob(trx, row.id);
      if (job?.state !== "running") await settleCancelled(trx, clock, row.id);
    });
  });
  services.jobs.poke();
  return campaign;
}

/** The workspace a cancel may act in: active or suspended (archived gets the active check's error). */
async function loadWorkspaceForCancel(db: Db, principal: Principal, workspaceId: string) {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  if (workspace.status === "archived") return loadActiveWorkspaceFor(db, principal, workspaceId);
  return workspace;
}
