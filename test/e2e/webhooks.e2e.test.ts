import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binPath, reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

type Verify = (secret: string, header: unknown, body: string, tolerance?: number) => boolean;

/** The verification helper exactly as docs/webhooks.md prints it. */
async function verifierFromDocs(): Promise<Verify> {
  const doc = readFileSync(new URL("../../docs/webhooks.md", import.meta.url), "utf8");
  const block = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const file = join(mkdtempSync(join(tmpdir(), "verify-")), "verify.mjs");
  writeFileSync(file, block);
  return ((await import(pathToFileURL(file).href)) as { verifyResellerSignature: Verify })
    .verifyResellerSignature;
}

async function until<T>(what: string, check: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("webhooks against a real service", () => {
  let verify: Verify;
  beforeAll(async () => {
    verify = await verifierFromDocs();
  });

  it("delivers signed events: 500 then 200, the same event id again, and after a restart", async () => {
    let secret = "";
    let answers = [500, 200];
    const receiver = await startReceiver({
      decide: ({ headers, body }) => {
        if (!verify(secret, headers["reseller-signature"], body)) return 400;
        return answers.shift() ?? 200;
      },
    });
    const args = ["--webhook-retry-base", "1"];
    let service: ServedService = await startServe({ args });
    const env = () => serviceEnv(service);
    try {
      const created = await reseller(
        ["webhooks", "create", "--url", receiver.url, "--events", "workspace.created", "--json"],
        { env: env() },
      );
      expect(created.exitCode, created.stderr).toBe(0);
      secret = JSON.parse(created.stdout).secret;
      expect(secret).toMatch(/^whsec_/);
      const endpointId = JSON.parse(created.stdout).id;

      const ws = await reseller(
        [
          "workspaces",
          "create",
          "--name",
          "Acme",
          "--email",
          "o@acme.test",
          "--no-invite",
          "--json",
        ],
        { env: env() },
      );
      expect(ws.exitCode, ws.stderr).toBe(0);
      const delivered = await until("a retried delivery", () =>
        receiver.received.length >= 2 ? receiver.received : undefined,
      );
      expect(delivered.map((d) => d.status)).toEqual([500, 200]);
      const ids = delivered.map((d) => d.headers["reseller-event-id"]);
      expect(ids[1]).toBe(ids[0]);
      expect(JSON.parse(delivered[1]?.body ?? "{}")).toMatchObject({
        id: ids[0],
        type: "workspace.created",
        data: { name: "Acme" },
      });
      const attempts = await reseller(["webhooks", "deliveries", endpointId, "--json"], {
        env: env(),
      });
      expect(
        JSON.parse(attempts.stdout).map((a: { status_code: number }) => a.status_code),
      ).toEqual([200, 500]);

      // The receiver fails while the service goes down; the delivery waits in the database.
      answers = [500];
      await reseller(
        ["workspaces", "create", "--name", "Later", "--email", "l@acme.test", "--no-invite"],
        { env: env() },
      );
      await until("the failed attempt", () => (receiver.received.length >= 3 ? true : undefined));
      const stopped = await service.stop();
      expect(stopped.exitCode).toBe(0);
      service = await startServe({ args, dbFile: service.dbFile, token: service.token });
      const after = await until("the delivery after the restart", () =>
        receiver.received.find((d) => d.status === 200 && JSON.parse(d.body).data.name === "Later"),
      );
      expect(after.headers["reseller-event-id"]).toBe(
        receiver.received[2]?.headers["reseller-event-id"],
      );
    } finally {
      await service.stop();
      await receiver.close();
    }
  }, 60_000);

  describe("reseller listen", () => {
    let service: ServedService;
    beforeAll(async () => {
      service = await startServe();
    });
    afterAll(async () => {
      await service.stop();
    });

    it("prints each event as JSON with --json, connects again when the service ends the stream, and exits 3 once its token is revoked", async () => {
      const env = { ...serviceEnv(service), CI: "true" };
      const created = await reseller(
        ["tokens", "create", "--name", "listener", "--scope", "webhooks:read", "--json"],
        { env },
      );
      const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
      const receiver = await startReceiver({ decide: () => 200 });
      const listen = execa("node", [binPath, "listen", "--forward-to", receiver.url, "--json"], {
        env: { ...env, RESELLER_TOKEN: token },
        reject: false,
        stdin: "ignore",
      });
      let stderr = "";
      let stdout = "";
      listen.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      listen.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      try {
        await until("listen to connect", () =>
          stderr.includes("Connected; waiting for events.") ? true : undefined,
        );
        await reseller(
          ["workspaces", "create", "--name", "Json", "--email", "j@acme.test", "--no-invite"],
          { env },
        );
        const line = await until("the event as JSON", () =>
          stdout.includes("\n") ? stdout.split("\n")[0] : undefined,
        );
        expect(JSON.parse(line)).toMatchObject({
          type: "workspace.created",
          data: { name: "Json" },
        });
        // Its line for people comes on stderr, a pipe of its own: maybe after the JSON.
        await until("the forward's line", () =>
          /workspace\.created {2}evt_\w+ {2}-> 200/.test(stderr) ? true : undefined,
        );
        const revoked = await fetch(`${service.url}/api/v1/tokens/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${service.token}` },
        });
        expect(revoked.status).toBe(200);
        const result = await listen;
        expect(result.exitCode, stderr).toBe(3);
        expect(stderr).toContain("connecting again");
        expect(stderr).toMatch(/401|unauthenticated/);
      } finally {
        listen.kill("SIGINT");
        await receiver.close();
      }
    }, 30_000);

    it("forwards each event signed with the secret it prints, one line per event, until Ctrl-C", async () => {
      let secret = "";
      const receiver = await startReceiver({
        decide: ({ headers, body }) =>
          verify(secret, headers["reseller-signature"], body) ? 202 : 400,
      });
      const env = { ...serviceEnv(service), CI: "true" };
      const listen = execa(
        "node",
        [binPath, "listen", "--forward-to", receiver.url, "--events", "workspace.created"],
        { env, reject: false, stdin: "ignore" },
      );
      let stderr = "";
      let stdout = "";
      listen.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      listen.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      try {
        secret = await until(
          "the printed secret",
          () => /(whsec_[A-Za-z0-9_-]+)/.exec(stderr)?.[1],
        );
        // Events made from the moment it says it is connected reach it.
        await until("listen to connect", () =>
          stderr.includes("Connected; waiting for events.") ? true : undefined,
        );
        const ws = await reseller(
          [
            "workspaces",
            "create",
            "--name",
            "Heard",
            "--email",
            "h@acme.test",
            "--no-invite",
            "--json",
          ],
          { env },
        );
        const id = JSON.parse(ws.stdout).id;
        const got = await until("the forwarded event", () => receiver.received[0]);
        expect(got.status).toBe(202);
        expect(JSON.parse(got.body)).toMatchObject({ type: "workspace.created", workspace_id: id });
        await until("the event line", () => (stdout.includes("\t202\t") ? true : undefined));
        // Piped: the line's fields tab-separated (time, type, id, status, ms, error).
        expect(stdout).toMatch(/Z\tworkspace\.created\tevt_\w+\t202\t\d+\t\n/);
      } finally {
        listen.kill("SIGINT");
        const result = await listen;
        await receiver.close();
        expect(result.exitCode, stderr).toBe(0);
        expect(stderr).toContain("Stopped listening; 1 event forwarded.");
      }
    }, 30_000);
  });
});
