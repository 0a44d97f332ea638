import { isIP } from "node:net";
import { redactedUrl } from "../../../contract/redacted-url.js";
import {
  defaultRateLimit,
  defaultReviewDelayMs,
  defaultThroughput,
  defaultWebhookRetryBaseMs,
  type WhatsappSettings,
} from "../../../service/config.js";
import { secretBoxFromKey } from "../../../service/domain/secret-box.js";
import type { ServeOptions } from "../../../service/server.js";
import { addressUrl } from "../../base-url.js";
import { usageError } from "../../cli-error.js";
import { booleanOption, intOption, secondsOption, stringOption } from "../../options.js";
import { isTokenText } from "../../token-text.js";
import { parseRateLimit } from "./rate-limit.js";

type Options = Readonly<Record<string, unknown>>;

/**
 * The service settings `serve`'s flags ask for, shared by `serve` and `serve exec`; where they
 * run (host, port, database, log level) is each command's own.
 */
export function serveSettings(
  options: Options,
  env: Readonly<Record<string, string | undefined>> = {},
): Omit<ServeOptions, "host" | "port" | "database" | "logLevel" | "bootstrapToken"> {
  const rateLimit = stringOption(options, "rateLimit");
  const reviewDelayMs = secondsOption(options, "reviewDelay", { min: 0, max: 86_400 });
  const webhookRetryBaseMs = secondsOption(options, "webhookRetryBase", {
    min: 0.001,
    max: 86_400,
  });
  return {
    plansFile: stringOption(options, "plans"),
    publicUrl: publicUrlOption(options),
    rateLimit: rateLimit === undefined ? defaultRateLimit : parseRateLimit(rateLimit),
    smtpUrl: smtpUrlOption(options, env),
    reviewDelayMs: reviewDelayMs ?? defaultReviewDelayMs,
    throughput: intOption(options, "throughput", { min: 0, max: 100_000 }) ?? defaultThroughput,
    webhookRetryBaseMs: webhookRetryBaseMs ?? defaultWebhookRetryBaseMs,
    blockPrivateWebhooks: booleanOption(options, "blockPrivateWebhooks"),
    publicSignup: options.publicSignup !== false,
    trustProxy: trustProxyOption(options),
    whatsapp: whatsappSettings(options, env),
  };
}

/** The names of address ranges fastify's proxy-addr knows, besides addresses and CIDR ranges. */
const proxyRangeNames = ["loopback", "linklocal", "uniquelocal"];

/**
 * `--trust-proxy 127.0.0.1,10.0.0.0/8`: the reverse proxies in front, each an address, a CIDR
 * range or a range's name; anything else stops serve at once, since fastify would refuse it later.
 */
function trustProxyOption(options: Options): string[] | undefined {
  const text = stringOption(options, "trustProxy");
  if (text === undefined) return undefined;
  const entries = text.split(",").map((entry) => entry.trim());
  const wrong = entries.find((entry) => !isProxyRange(entry));
  if (wrong !== undefined) {
    throw usageError(
      `--trust-proxy expects your proxies' addresses, comma-separated: IPs, CIDR ranges (10.0.0.0/8) or ${proxyRangeNames.join(", ")}; got '${wrong}'.`,
    );
  }
  return entries;
}

function isProxyRange(entry: string): boolean {
  if (proxyRangeNames.includes(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `--smtp-url`, else RESELLER_SMTP_URL (its password is better kept out of `ps` and shell
 * history: the environment may hold it): an smtp:// or smtps:// URL, checked before the
 * database is opened.
 */
function smtpUrlOption(
  options: Options,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const given = stringOption(options, "smtpUrl");
  const text = given ?? (env.RESELLER_SMTP_URL || undefined);
  if (text === undefined) return undefined;
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  // The mailer decodes the user and password: a stray % (p%zz) would fail it after the start.
  const decodes = (part: string) => {
    try {
      decodeURIComponent(part);
      return true;
    } catch {
      return false;
    }
  };
  if (
    !url ||
    !/^smtps?:$/.test(url.protocol) ||
    url.hostname === "" ||
    !decodes(url.username) ||
    !decodes(url.password)
  ) {
    throw usageError(
      `${given === undefined ? "RESELLER_SMTP_URL" : "--smtp-url"} expects smtp://user:password@host:port (or smtps://); got '${redactedUrl(text)}'.`,
    );
  }
  return text;
}

/**
 * The first reseller account's token from RESELLER_BOOTSTRAP_TOKEN, trimmed (an env file saved
 * with Windows line endings keeps a \r): one that could never be sent back (a space, a control
 * character) is refused before anything is created, since the account would be locked out.
 */
export function bootstrapTokenOption(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const token = env.RESELLER_BOOTSTRAP_TOKEN?.trim();
  if (!token) return undefined;
  if (!isTokenText(token)) {
    throw usageError(
      "RESELLER_BOOTSTRAP_TOKEN holds a space, a control character or a non-ASCII letter: no request could send it.",
      "Make it random, e.g. RESELLER_BOOTSTRAP_TOKEN=rsk_$(openssl rand -hex 24).",
    );
  }
  return token;
}

/**
 * `--public-url`: the address clients reach, to which sign-up links add `/register?plan=…`, so
 * it must be an http(s) URL without a query, fragment or credentials.
 */
function publicUrlOption(options: Options): string | undefined {
  const text = stringOption(options, "publicUrl");
  if (text === undefined) return undefined;
  const url = addressUrl(text);
  const problem =
    typeof url === "string" ? url : url.username || url.password ? "it holds credentials." : null;
  if (problem !== null) {
    throw usageError(
      `--public-url must be the http(s) address your clients reach, e.g. https://signup.example.com: ${problem}`,
    );
  }
  return text;
}

/** `--graph-url` and the WhatsApp secrets of the environment; a malformed key stops serve at once. */
function whatsappSettings(
  options: Options,
  env: Readonly<Record<string, string | undefined>>,
): WhatsappSettings {
  const graphUrl = stringOption(options, "graphUrl");
  if (graphUrl !== undefined && !/^https?:\/\/[^/]/.test(graphUrl)) {
    throw usageError(
      `--graph-url must be an http(s) URL, e.g. https://graph.facebook.com/v21.0; got '${graphUrl}'`,
    );
  }
  const secretKey = env.RESELLER_SECRET_KEY || undefined;
  if (secretKey !== undefined) {
    try {
      secretBoxFromKey(secretKey);
    } catch (error) {
      throw usageError((error as Error).message);
    }
  }
  return {
    graphUrl,
    secretKey,
    appSecret: env.RESELLER_WHATSAPP_APP_SECRET || undefined,
    verifyToken: env.RESELLER_WHATSAPP_VERIFY_TOKEN || undefined,
  };
}

/**
 * `--host`, 127.0.0.1 when not given; an empty one is refused, since the server would take it
 * as every interface and open the service to the network unasked.
 */
export function hostOption(options: Options): string {
  const host = stringOption(options, "host");
  if (host === undefined) return "127.0.0.1";
  if (host.trim() === "") {
    throw usageError(
      "--host is empty.",
      "Give an address to listen on: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).",
    );
  }
  return host.trim();
}
