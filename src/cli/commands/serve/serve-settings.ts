import { parseRateLimit, type WhatsappSettings } from "../../../service/config.js";
import { secretBoxFromKey } from "../../../service/messaging/token-crypto.js";
import type { ServeOptions } from "../../../service/server.js";
import { addressUrl } from "../../base-url.js";
import { usageError } from "../../cli-error.js";
import { booleanOption, intOption, stringOption } from "../../options.js";

type Options = Readonly<Record<string, unknown>>;

/**
 * The service settings `serve`'s flags ask for, shared by `serve` and `serve exec`; where they
 * run (host, port, database, log level) is each command's own.
 */
export function serveSettings(
  options: Options,
  env: Readonly<Record<string, string | undefined>> = {},
): Omit<ServeOptions, "host" | "port" | "database" | "logLevel" | "bootstrapToken"> {
  let rateLimit: ServeOptions["rateLimit"];
  try {
    rateLimit = parseRateLimit(stringOption(options, "rateLimit") ?? "6000/1m");
  } catch (error) {
    throw usageError((error as Error).message);
  }
  return {
    plansFile: stringOption(options, "plans"),
    publicUrl: publicUrlOption(options),
    rateLimit,
    // Its password is better kept out of `ps` and shell history: the environment may hold it.
    smtpUrl: stringOption(options, "smtpUrl") ?? (env.RESELLER_SMTP_URL || undefined),
    reviewDelayMs: (intOption(options, "reviewDelay", { min: 0, max: 86_400 }) ?? 5) * 1000,
    throughput: intOption(options, "throughput", { min: 0, max: 100_000 }) ?? 80,
    webhookRetryBaseMs:
      (intOption(options, "webhookRetryBase", { min: 1, max: 86_400 }) ?? 60) * 1000,
    blockPrivateWebhooks: booleanOption(options, "blockPrivateWebhooks"),
    publicSignup: options.publicSignup !== false,
    whatsapp: whatsappSettings(options, env),
  };
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
