import type { ServerResponse } from "node:http";
import type { App } from "../app-types.js";
import { callApi } from "./api-proxy.js";

/** How often the stream reads the campaign's stats from the API. */
export const streamPollMs = 1000;
/** A comment line this often keeps proxies from closing an idle stream. */
const keepAliveMs = 15_000;

/**
 * Streams a campaign's record and stats as Server-Sent Events (`event: stats`) by reading the
 * public API with the session's token once a second and sending each change. The browser's
 * EventSource reconnects by itself (`retry:` says after how long); an API error is sent as
 * `event: problem` with the API's error body, and ends the stream. Answers a function that ends
 * the stream, for the service's shutdown.
 */
export function streamCampaignStats(
  app: App,
  token: () => Promise<string | null>,
  out: ServerResponse,
  ids: { workspaceId: string; campaignId: string },
): () => void {
  out.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  out.write("retry: 2000\n\n");
  const base = `/api/v1/workspaces/${encodeURIComponent(ids.workspaceId)}/campaigns/${encodeURIComponent(ids.campaignId)}`;
  let last = "";
  let closed = false;
  let lastWrite = Date.now();

  const send = (event: string, data: string) => {
    out.write(`event: ${event}\ndata: ${data}\n\n`);
    lastWrite = Date.now();
  };
  const stop = () => {
    closed = true;
    clearInterval(timer);
  };
  const poll = async () => {
    const bearer = await token();
    if (bearer === null) {
      send("problem", JSON.stringify({ error_code: "unauthenticated", message: "Signed out." }));
      stop();
      out.end();
      return;
    }
    const [campaign, stats] = await Promise.all([
      callApi(app, bearer, { method: "GET", url: base }),
      callApi(app, bearer, { method: "GET", url: `${base}/stats` }),
    ]);
    if (closed) return;
    const failed = campaign.status >= 400 ? campaign : stats.status >= 400 ? stats : null;
    if (failed) {
      send("problem", failed.body);
      stop();
      out.end();
      return;
    }
    const data = JSON.stringify({
      campaign: (JSON.parse(campaign.body) as { data: unknown }).data,
      stats: (JSON.parse(stats.body) as { data: unknown }).data,
    });
    if (data !== last) {
      last = data;
      send("stats", data);
    } else if (Date.now() - lastWrite > keepAliveMs) {
      out.write(": keep-alive\n\n");
      lastWrite = Date.now();
    }
  };
  let running = false;
  const tick = () => {
    if (running || closed) return;
    running = true;
    poll()
      .catch((error: unknown) => {
        app.log.error({ err: error }, "dashboard campaign stream");
        stop();
        out.end();
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, streamPollMs);
  tick();
  return () => {
    if (closed) return;
    stop();
    out.end();
  };
}
