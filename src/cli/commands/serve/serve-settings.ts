import { parseRateLimit } from "../../../service/config.js";
import type { ServeOptions } from "../../../service/server.js";
import { usageError } from "../../cli-error.js";
import { intOption, stringOption } from "../../options.js";

type Options = Readonly<Record<string, unknown>>;

/**
 * The service settings `serve`'s flags ask for, shared by `serve` and `serve exec`; where they
 * run (host, port, database, log level) is each command's own.
 */
export function serveSettings(
  options: Options,
): Omit<ServeOptions, "host" | "port" | "dbFile" | "logLevel" | "bootstrapToken"> {
  let rateLimit: ServeOptions["rateLimit"];
  try {
    rateLimit = parseRateLimit(stringOption(options, "rateLimit") ?? "6000/1m");
  } catch (error) {
    throw usageError((error as Error).message);
  }
  return {
    plansFile: stringOption(options, "plans"),
    publicUrl: stringOption(options, "publicUrl"),
    rateLimit,
    smtpUrl: stringOption(options, "smtpUrl"),
    reviewDelayMs: (intOption(options, "reviewDelay", { min: 0, max: 86_400 }) ?? 5) * 1000,
    throughput: intOption(options, "throughput", { min: 0, max: 100_000 }) ?? 80,
  };
}
