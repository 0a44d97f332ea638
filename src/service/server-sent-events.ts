import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/** A comment line this often, when nothing else was written, keeps proxies from closing a stream. */
export const sseKeepAliveMs = 15_000;

/** One frame of a stream: the lines a browser's EventSource reads, each field when given. */
export interface SseEvent {
  /** A line the client ignores (`: text`), for someone reading the raw stream. */
  comment?: string;
  /** How long the browser waits before it reconnects after a drop. */
  retryMs?: number;
  id?: string;
  event?: string;
  /** One line: JSON, whose text never holds a line break. */
  data?: string;
}

/** A Server-Sent Events response being written (see openSse). */
export interface SseStream {
  send(event: SseEvent): void;
  /** Ends the response; later writes are dropped. */
  end(): void;
  readonly ended: boolean;
}

/**
 * Opens `out` as a Server-Sent Events stream, the one writer of the service's streams (the event
 * log's and the dashboard's): the head with `headers`, then every frame, and a keep-alive comment
 * after each quiet `sseKeepAliveMs`. The stream ends when `end` is called or the client goes.
 */
export function openSse(
  out: ServerResponse,
  headers: OutgoingHttpHeaders,
  keepAliveMs = sseKeepAliveMs,
): SseStream {
  out.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    // nginx buffers a proxied response unless told not to: events would arrive in lumps.
    "x-accel-buffering": "no",
  });
  let ended = false;
  // Started again by every write (refresh), so it fires only after keepAliveMs of quiet, and
  // its own write starts the next wait.
  const keepAlive = setTimeout(() => write(frameOf({ comment: "keep-alive" })), keepAliveMs);
  const write = (text: string) => {
    if (ended) return;
    out.write(text);
    keepAlive.refresh();
  };
  const stop = () => {
    ended = true;
    clearTimeout(keepAlive);
  };
  out.on("close", stop);
  return {
    send(event) {
      write(frameOf(event));
    },
    end() {
      if (ended) return;
      stop();
      out.end();
    },
    get ended() {
      return ended;
    },
  };
}

/** The text of one frame: its fields in the order EventSource reads them, then a blank line. */
function frameOf(event: SseEvent): string {
  let frame = "";
  if (event.comment !== undefined) frame += `: ${event.comment}\n`;
  if (event.retryMs !== undefined) frame += `retry: ${event.retryMs}\n`;
  if (event.id !== undefined) frame += `id: ${event.id}\n`;
  if (event.event !== undefined) frame += `event: ${event.event}\n`;
  if (event.data !== undefined) frame += `data: ${event.data}\n`;
  return `${frame}\n`;
}
