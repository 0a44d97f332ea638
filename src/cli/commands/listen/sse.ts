/** One Server-Sent Event: its id, event name and data (lines joined). */
export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string;
}

/**
 * Splits a text/event-stream into messages as chunks arrive: feed it chunks, it returns the
 * messages each completes. Comment lines (keep-alives) are skipped.
 */
export class SseParser {
  private buffer = "";
  /** The last `id` the stream gave, with an event or alone (where a stream starts). */
  lastEventId: string | null = null;

  push(chunk: string): SseMessage[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const messages: SseMessage[] = [];
    for (let end = this.buffer.indexOf("\n\n"); end !== -1; end = this.buffer.indexOf("\n\n")) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: SseMessage = { id: null, event: null, data: "" };
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(value);
        else if (field === "id") {
          message.id = value;
          this.lastEventId = value;
        } else if (field === "event") message.event = value;
      }
      if (data.length > 0) messages.push({ ...message, data: data.join("\n") });
    }
    return messages;
  }
}
