import type { ServerResponse } from "node:http";
import { parseRetryAfter } from "../../contract/retry-after.js";
import { finalCampaignStatuses } from "../../contract/vocabulary.js";
import type { App } from "../app-types.js";
import { openSse, type SseEvent } from "../server-sent-events.js";
import { callApi } from "./api-proxy.js";

/** How often the stream reads the campaign's stats from the API while the campaign runs. */
export const streamPollMs = 1000;
/**
 * Once the campaign is final (completed, failed, cancelled) only delivery and read reports can
 * still change its stats: they are read this often, until they have stayed the same for
 * `settleQuietMs` or `settleMaxMs` has passed since the stream saw the campaign final. Then the
 * stream says `event: settled` and ends.
 */
export const settlingPollMs = 5000;
export const settleQuietMs = 30_000;
export const settleMaxMs = 10 * 60_000;
/** A 429 without a usable Retry-After waits this long; a longer Retry-After is cut to the max. */
const rateLimitedWaitMs = { default: 5000, max: 60_000 };

/** How long a 429 asks to wait, from its Retry-After (seconds), bounded. */
function retryAfterMs(header: string | undefined): number {
  const seconds = parseRetryAfter(header);
  if (seconds === null || seconds <= 0) return rateLimitedWaitMs.default;
  return Math.min(seconds * 1000, rateLimitedWaitMs.max);
}

/**
 * Streams a campaign's record and stats as Server-Sent Events (`event: stats`) by reading the
 * public API with the session's token once a second and sending each change. When the campaign
 * is final it reads slower until its reports settle, then sends `event: settled` and ends, so an
 * open page stops spending the token's rate limit. A 429 (the token's rate limit) waits its
 * Retry-After and goes on; any other API error is sent as `event: problem` with the API's error
 * body, and ends the stream. The browser's EventSource reconnects by itself after a drop
 * (`retry:` says after how long). Answers a function that ends the stream, for the service's
 * shutdown.
 */
export function streamCampaignStats(
  app: App,
  token: () => Promise<string | null>,
  out: ServerResponse,
  ids: { workspaceId: string; campaignId: string },
): () => void {
  const stream = openSse(out, {});
  stream.send({ retryMs: 2000 });
  const base = `/api/v1/workspaces/${encodeURIComponent(ids.workspaceId)}/campaigns/${encodeURIComponent(ids.campaignId)}`;
  let last = "";
  let timer: NodeJS.Timeout | undefined;
  /** When the stream first saw the campaign final, and when its stats last changed. */
  let finalSince: number | null = null;
  let changedAt = Date.now();

  const end = (event?: SseEvent) => {
    if (event) stream.send(event);
    clearTimeout(timer);
    stream.end();
  };
  /** Reads once; answers how long to wait before the next read, or null when the stream ended. */
  const poll = async (): Promise<number | null> => {
    const bearer = await token();
    if (bearer === null) {
      end({
        event: "problem",
        data: JSON.stringify({ error_code: "unauthenticated", message: "Signed out." }),
      });
      return null;
    }
    const [campaign, stats] = await Promise.all([
      callApi(app, bearer, { method: "GET", url: base }),
      callApi(app, bearer, { method: "GET", url: `${base}/stats` }),
    ]);
    if (stream.ended) return null;
    const limited = [campaign, stats].find((answer) => answer.status === 429);
    if (limited) return retryAfterMs(limited.headers["retry-after"]);
    const failed = campaign.status >= 400 ? campaign : stats.status >= 400 ? stats : null;
    if (failed) {
      end({ event: "problem", data: failed.body });
      return null;
    }
    const record = (JSON.parse(campaign.body) as { data: { status?: string } }).data;
    const data = JSON.stringify({
      campaign: record,
      stats: (JSON.parse(stats.body) as { data: unknown }).data,
    });
    const now = Date.now();
    if (data !== last) {
      last = data;
      changedAt = now;
      stream.send({ event: "stats", data });
    }
    if (!finalCampaignStatuses.includes(record.status ?? "")) {
      finalSince = null;
      return streamPollMs;
    }
    finalSince ??= now;
    if (now - changedAt >= settleQuietMs || now - finalSince >= settleMaxMs) {
      end({ event: "settled", data: JSON.stringify({ status: record.status }) });
      return null;
    }
    return settlingPollMs;
  };
  const tick = () => {
    if (stream.ended) return;
    poll()
      .then((wait) => {
        if (wait !== null && !stream.ended) timer = setTimeout(tick, wait);
      })
      .catch((error: unknown) => {
        app.log.error({ err: error }, "dashboard campaign stream");
        end();
      });
  };
  tick();
  return () => end();
}
