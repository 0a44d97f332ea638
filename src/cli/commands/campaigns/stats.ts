import {
  type Campaign,
  CampaignResponse,
  type CampaignStats,
  CampaignStatsResponse,
} from "../../../contract/campaigns.js";
import { finalCampaignStatuses } from "../../../contract/vocabulary.js";
import { exitCodes } from "../../cli-error.js";
import type { CommandResult, Handler } from "../../command-spec.js";
import { interruptibleWait } from "../../interruptible-wait.js";
import { booleanOption } from "../../options.js";
import { count } from "../../output/counts.js";
import { liveFrame } from "../../output/live-frame.js";
import { createPaint } from "../../output/paint.js";
import { campaignLabel, campaignsPath, funnelText, statsView } from "./campaign-format.js";

/** How often --watch asks again. */
export const watchIntervalMs = 2000;

interface Snapshot {
  campaign: Campaign;
  stats: CampaignStats;
  /** The stats as the service sent them, for --json. */
  raw: unknown;
}

/** After sending ends, how long --watch waits at most for the last delivery and read reports. */
export const settleLimitMs = 60_000;

const ended = (status: Campaign["status"]) => finalCampaignStatuses.includes(status);

/** The figures delivery and read reports change. */
const reported = (s: CampaignStats) => `${s.sent} ${s.delivered} ${s.read} ${s.failed}`;

function summary(s: Snapshot): string {
  const { stats } = s;
  const skipped = stats.skipped_no_consent + stats.skipped_opted_out;
  const cancelled = stats.cancelled > 0 ? `, ${count(stats.cancelled)} cancelled` : "";
  return `${count(stats.sent)} sent, ${count(stats.delivered)} delivered, ${count(stats.read)} read, ${count(stats.failed)} failed, ${count(skipped)} skipped${cancelled}`;
}

/**
 * `reseller campaigns stats <id> [--watch]`: the campaign's delivery funnel. With --watch it asks
 * again every 2 s until the campaign has ended and its delivery and read reports have settled
 * (every message read, or a poll without news, at most 60 s after the end), redrawing the funnel
 * in place on stderr at a terminal; the final figures are the result (printed once, also when piped or with
 * --json). Exit 0 only when it completed: 5 when it failed or was cancelled, and at once when it
 * is a draft or paused (nothing would ever end), with --json as the error.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const fetchSnapshot = async (): Promise<Snapshot> => {
    const [campaign, stats] = await Promise.all([
      client.get(campaignsPath(workspaceId, id), CampaignResponse),
      client.get(campaignsPath(workspaceId, id, "stats"), CampaignStatsResponse),
    ]);
    return { campaign: campaign.body.data, stats: stats.body.data, raw: stats.raw.data };
  };
  let snapshot = await fetchSnapshot();
  const result = (s: Snapshot, extra: Partial<CommandResult> = {}): CommandResult => ({
    data: s.raw,
    view: statsView(s.campaign, s.stats, ctx.output === "table"),
    ...extra,
  });
  if (!booleanOption(options, "watch")) return result(snapshot);

  if (snapshot.campaign.status === "draft") {
    return result(snapshot, {
      message: `Campaign ${campaignLabel(snapshot.campaign)} is a draft: nothing to watch until \`reseller campaigns launch ${snapshot.campaign.id}${await ctx.workspaceArg()}\`.`,
      exitCode: exitCodes.conflict.code,
      errorCode: "campaign_not_launched",
    });
  }
  // A dumb terminal (Emacs' shell) cannot redraw in place: the final figures only.
  const live =
    ctx.io.stderr.isTTY === true &&
    ctx.env.TERM !== "dumb" &&
    ctx.output !== "json" &&
    ctx.output !== "quiet";
  const frame = liveFrame(ctx.io.stderr);
  const paint = createPaint(ctx.color);
  const wait = interruptibleWait(ctx.sleep);
  try {
    return await watch();
  } finally {
    wait.dispose();
  }

  async function watch(): Promise<CommandResult> {
    while (
      !ended(snapshot.campaign.status) &&
      snapshot.campaign.status !== "paused" &&
      !wait.interrupted
    ) {
      if (live) {
        const waiting =
          snapshot.campaign.status === "scheduled"
            ? `waiting for the scheduled start (${snapshot.campaign.scheduled_at})`
            : "sending";
        frame.draw(
          `${funnelText(snapshot.campaign, snapshot.stats, paint)}\n${paint.dim(`  ${waiting}… every ${watchIntervalMs / 1000} s; Ctrl-C stops watching, not the campaign`)}`,
        );
      }
      await wait.sleep(watchIntervalMs);
      const next = await wait.until(fetchSnapshot());
      if (next === undefined) break;
      snapshot = next;
    }
    // Reports of the last messages arrive after the campaign completes (delivered after about a
    // second, read later): keep watching until every message is read or a poll brings no report.
    let previous: string | undefined;
    for (
      let waited = 0;
      !wait.interrupted &&
      (snapshot.campaign.status === "completed" || snapshot.campaign.status === "cancelled") &&
      snapshot.stats.read < snapshot.stats.sent &&
      reported(snapshot.stats) !== previous &&
      waited < settleLimitMs;
      waited += watchIntervalMs
    ) {
      if (live) {
        frame.draw(
          `${funnelText(snapshot.campaign, snapshot.stats, paint)}\n${paint.dim(`  ${snapshot.campaign.status}; waiting for delivery and read reports… Ctrl-C stops watching`)}`,
        );
      }
      previous = reported(snapshot.stats);
      await wait.sleep(watchIntervalMs);
      const next = await wait.until(fetchSnapshot());
      if (next === undefined) break;
      snapshot = next;
    }
    if (live) frame.clear();
    const { campaign } = snapshot;
    if (wait.interrupted) {
      return result(snapshot, {
        message: `Stopped watching campaign ${campaignLabel(campaign)}, ${campaign.status}; it goes on in the service (${summary(snapshot)}). Watch again with \`reseller campaigns stats ${campaign.id} -w ${workspaceId} --watch\`.`,
        exitCode: exitCodes.interrupted.code,
        errorCode: "interrupted",
      });
    }
    if (campaign.status === "paused") {
      return result(snapshot, {
        message: `Campaign ${campaignLabel(campaign)} is paused (${summary(snapshot)}): nothing more is sent until \`reseller campaigns resume ${campaign.id} -w ${workspaceId}\`.`,
        exitCode: exitCodes.conflict.code,
        errorCode: "campaign_paused",
      });
    }
    if (campaign.status === "cancelled") {
      return result(snapshot, {
        message: `Campaign ${campaignLabel(campaign)} was cancelled: ${summary(snapshot)}.`,
        exitCode: exitCodes.conflict.code,
        errorCode: "campaign_cancelled",
      });
    }
    if (campaign.status === "failed") {
      return result(snapshot, {
        message: `Campaign ${campaignLabel(campaign)} failed: ${campaign.failure_reason ?? "no reason given"} (${summary(snapshot)}).`,
        exitCode: exitCodes.conflict.code,
        errorCode: "campaign_failed",
        details: [
          { field: "failure_reason", message: campaign.failure_reason ?? "no reason given" },
        ],
      });
    }
    return result(snapshot, {
      message: `Campaign ${campaignLabel(campaign)} ${campaign.status}: ${summary(snapshot)}.`,
    });
  }
};
