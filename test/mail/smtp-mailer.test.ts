import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { smtpMailer, transportUrl } from "../../src/service/mail/smtp-mailer.js";

/** A minimal SMTP server on a free port that accepts every message and keeps its data. */
async function fakeSmtpServer(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let inData = false;
    let data = "";
    let pending = "";
    socket.write("220 fake.test ESMTP\r\n");
    socket.on("data", (chunk) => {
      pending += chunk.toString("utf8");
      let end = pending.indexOf("\r\n");
      while (end !== -1) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            messages.push(data);
            socket.write("250 queued\r\n");
          } else data += `${line}\n`;
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write("250 fake.test\r\n");
        else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (/^QUIT/i.test(line)) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
        end = pending.indexOf("\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { server, port: address.port, messages };
}

describe("SMTP mailer", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it("sends an email through the SMTP server the URL names", async () => {
    const smtp = await fakeSmtpServer();
    server = smtp.server;
    const mailer = smtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "hi@reseller.test" });
    await mailer.send({ to: "owner@acme.test", subject: "Welcome", text: "Sign up here" });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]).toContain("Subject: Welcome");
    expect(smtp.messages[0]).toContain("To: owner@acme.test");
    expect(smtp.messages[0]).toContain("From: hi@reseller.test");
    expect(smtp.messages[0]).toContain("Sign up here");
  });

  it("rejects when the server cannot be reached", async () => {
    const smtp = await fakeSmtpServer();
    const port = smtp.port;
    await new Promise((resolve) => smtp.server.close(resolve));
    const mailer = smtpMailer({ url: `smtp://127.0.0.1:${port}` });
    await expect(mailer.send({ to: "a@b.test", subject: "s", text: "t" })).rejects.toThrow();
  });

  it("requires STARTTLS from a server on another machine it logs in to, so the password never crosses in clear", () => {
    const params = (url: string) => new URL(transportUrl(new URL(url))).searchParams;
    expect(params("smtp://u:p@mail.example.com:587").get("requireTLS")).toBe("true");
    // On this machine the password crosses no network; a URL's own word is kept.
    expect(params("smtp://u:p@127.0.0.1:2525").has("requireTLS")).toBe(false);
    expect(params("smtp://u:p@localhost:2525").has("requireTLS")).toBe(false);
    expect(params("smtp://u:p@relay.lan:25?requireTLS=false").get("requireTLS")).toBe("false");
    // A relay without login has no password to lose (a Docker network's postfix).
    expect(params("smtp://postfix:25").has("requireTLS")).toBe(false);
    // smtps:// is TLS from the first byte.
    expect(params("smtps://u:p@mail.example.com:465").has("requireTLS")).toBe(false);
  });

  it("refuses a URL that is not smtp:// or smtps://", () => {
    expect(() => smtpMailer({ url: "http://mail.test" })).toThrow(/smtp:\/\//);
  });
});
