import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../../../test/helpers/cli.js";

/** A server on a free port of 127.0.0.1, answering with `handle`. */
async function serve(
  handle: (req: IncomingMessage, res: import("node:http").ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("reseller listen", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("connects again from the last event when the connection breaks or a restart answers 503, and ends with the answer of a refused reconnect", async () => {
    const connections: (string | undefined)[] = [];
    const service = await serve((req, res) => {
      connections.push(req.headers["last-event-id"] as string | undefined);
      if (connections.length === 1) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('id: evt_1\nevent: workspace.created\ndata: {"id":"evt_1"}\n\n');
        // The service dies mid-stream: no end of the response, the socket just goes.
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      if (connections.length === 2) {
        // A load balancer while the service restarts: waited for, like a refused connection.
        res.writeHead(503, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ status: "error", error_code: "unavailable", message: "Restarting." }),
        );
        return;
      }
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          status: "error",
          error_code: "unauthenticated",
          message: "The token was revoked.",
        }),
      );
    });
    const receiver = await serve((_req, res) => res.writeHead(204).end());
    servers.push(service.server, receiver.server);
    const run = await runCli(["listen", "--forward-to", receiver.url], {
      env: { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    expect(connections).toEqual([undefined, "evt_1", "evt_1"]);
    expect(run.stdout).toMatch(/\tworkspace\.created\tevt_1\t204\t/);
    expect(run.stderr).toContain("connecting again");
    expect(run.code, run.stderr).toBe(3);
  });

  it("says when it is connected, and when it is connected again after the stream broke", async () => {
    let connections = 0;
    const service = await serve((_req, res) => {
      connections += 1;
      if (connections <= 2) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": connected\n\n");
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ status: "error", error_code: "unauthenticated", message: "Revoked." }),
      );
    });
    const receiver = await serve((_req, res) => res.writeHead(204).end());
    servers.push(service.server, receiver.server);
    const run = await runCli(["listen", "--forward-to", receiver.url], {
      env: { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    const said = run.stderr.split("\n").filter((line) => line.startsWith("Connected"));
    expect(said).toEqual(["Connected; waiting for events.", "Connected again."]);
    expect(run.code, run.stderr).toBe(3);
  });

  it("counts the events the local URL did not take when it stops", async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('id: evt_1\nevent: workspace.created\ndata: {"id":"evt_1"}\n\n');
    });
    const receiver = await serve((_req, res) => {
      res.writeHead(500).end();
      setTimeout(() => process.emit("SIGINT"), 20); // Ctrl-C once the event was forwarded
    });
    servers.push(service.server, receiver.server);
    const run = await runCli(["listen", "--forward-to", receiver.url], {
      env: { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Forwarding every event of");
    expect(run.stderr).toContain(
      `Stopped listening; 1 event forwarded, 1 not taken by ${receiver.url}/ (no answer or not a 2xx).`,
    );
  });

  it("stops at once on Ctrl-C while a local URL hangs, forwarding none of the events still waiting", async () => {
    const service = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const n of [1, 2, 3]) {
        res.write(`id: evt_${n}\nevent: workspace.created\ndata: {"id":"evt_${n}"}\n\n`);
      }
    });
    let asked = 0;
    const receiver = await serve(() => {
      // Never answers; Ctrl-C once the first event is on its way.
      asked += 1;
      setTimeout(() => process.emit("SIGINT"), 20);
    });
    servers.push(service.server, receiver.server);
    const started = Date.now();
    const run = await runCli(["listen", "--forward-to", receiver.url], {
      env: { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    expect(run.code, run.stderr).toBe(0);
    // The forward's own limit is 10 s: the first Ctrl-C ends it.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(asked).toBe(1);
    expect(run.stderr).toContain("Stopped listening; 0 events forwarded.");
  });

  it("refuses a --forward-to URL with a user name or password before connecting (exit 2)", async () => {
    const run = await runCli(["listen", "--forward-to", "http://user:pw@127.0.0.1:9/hooks"], {
      env: { RESELLER_BASE_URL: "http://127.0.0.1:9", RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--forward-to must not hold a user name or password");
    expect(run.stderr).not.toContain("pw@");
  });

  it("checks --forward-to with the rule of a webhook endpoint's URL before connecting (exit 2)", async () => {
    for (const [url, problem] of [
      ["ftp://127.0.0.1/hooks", "--forward-to must be an http or https URL"],
      ["http://127.0.0.1:0/hooks", "--forward-to must not use port 0"],
      ["http://127.0.0.1/my hooks", "--forward-to must not hold spaces"],
    ] as const) {
      const run = await runCli(["listen", "--forward-to", url], {
        env: { RESELLER_BASE_URL: "http://127.0.0.1:9", RESELLER_TOKEN: "rsk_listen_test_0001" },
      });
      expect(run.code, url).toBe(2);
      expect(run.stderr).toContain(problem);
      expect(run.stderr).toContain("http://localhost:4000/hooks");
    }
  });

  it("resumes from the position the stream started at when it breaks before any event came", async () => {
    const connections: (string | undefined)[] = [];
    const service = await serve((req, res) => {
      connections.push(req.headers["last-event-id"] as string | undefined);
      if (connections.length === 1) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": connected\nid: evt_01start\n\n");
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "error", error_code: "unauthenticated", message: "No." }));
    });
    const receiver = await serve((_req, res) => res.writeHead(204).end());
    servers.push(service.server, receiver.server);
    const run = await runCli(["listen", "--forward-to", receiver.url], {
      env: { RESELLER_BASE_URL: service.url, RESELLER_TOKEN: "rsk_listen_test_0001" },
    });
    expect(connections).toEqual([undefined, "evt_01start"]);
    expect(run.stdout).toBe("");
    expect(run.code, run.stderr).toBe(3);
  });
});
