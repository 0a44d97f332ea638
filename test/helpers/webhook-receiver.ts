import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered with. */
  status: number;
}

/**
 * A webhook receiver on loopback: records every request and answers with the statuses of
 * `answers` in turn (the last one repeats), or with what `decide` says.
 */
export async function startReceiver(
  options: {
    answers?: number[];
    decide?: (delivery: Omit<ReceivedDelivery, "status">) => number;
  } = {},
): Promise<{ url: string; received: ReceivedDelivery[]; close(): Promise<void> }> {
  const received: ReceivedDelivery[] = [];
  const answers = options.answers ?? [200];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const status = options.decide
        ? options.decide({ headers: req.headers, body })
        : (answers[Math.min(received.length, answers.length - 1)] ?? 200);
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
