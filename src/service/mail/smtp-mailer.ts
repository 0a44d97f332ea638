import nodemailer from "nodemailer";
import type { Mailer, OutgoingMail } from "../domain/outbox.js";

/** How `serve` reaches an SMTP server: `smtp[s]://user:pass@host:port`, and the sender. */
export interface SmtpSettings {
  url: string;
  /** The From address; defaults to the URL's user when it is an address, else no-reply@host. */
  from?: string | undefined;
}

/**
 * Short timeouts, because an invitation is sent while its workspace is being created: a dead
 * server must not hold the request for nodemailer's default two minutes. A URL that sets its
 * own (as query parameters) keeps them.
 */
const defaultTimeouts = { connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10000 };

/** Hosts on this machine, where the password never crosses a network. */
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The URL nodemailer is given: the default timeouts, and, for `smtp://` with a password to
 * another machine, `requireTLS`: nodemailer otherwise sends the password in clear to a server
 * that does not offer STARTTLS, which anyone on the path can arrange by removing the offer. A
 * URL that says `requireTLS=false` keeps its word; a relay without login is left as it is.
 */
export function transportUrl(url: URL): string {
  for (const [name, ms] of Object.entries(defaultTimeouts)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(ms));
  }
  const local = loopbackHosts.has(url.hostname) || url.hostname.startsWith("127.");
  const login = url.username !== "" || url.password !== "";
  if (url.protocol === "smtp:" && login && !local && !url.searchParams.has("requireTLS")) {
    url.searchParams.set("requireTLS", "true");
  }
  return url.toString();
}

function defaultFrom(url: URL): string {
  const user = decodeURIComponent(url.username);
  return user.includes("@") ? user : `no-reply@${url.hostname || "localhost"}`;
}

/** A mailer that sends through the SMTP server the settings name, with nodemailer. */
export function smtpMailer(settings: SmtpSettings): Mailer {
  const url = new URL(settings.url);
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") {
    throw new Error(`the SMTP URL must start with smtp:// or smtps://; got '${url.protocol}'`);
  }
  const from = settings.from ?? defaultFrom(url);
  const transport = nodemailer.createTransport(transportUrl(url));
  return {
    send: async (mail: OutgoingMail) => {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
