import type { RateLimit } from "../../../service/config.js";
import { usageError } from "../../cli-error.js";

const windowUnits: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** `--rate-limit N/WINDOW` such as `600/1m`, `100/s` or `5000/1h`; anything else is a usage error. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^(\d+)\/(\d*)(s|m|h)$/.exec(text.trim());
  const unit = match?.[3];
  if (!match || unit === undefined || Number(match[1]) < 1) {
    throw usageError(
      `--rate-limit expects N/WINDOW such as 600/1m, 100/s or 5000/1h; got '${text}'`,
    );
  }
  const count = match[2] === "" ? 1 : Number(match[2]);
  // A window of no time would never count a request, which turns the limit off.
  if (count < 1) {
    throw usageError(
      `--rate-limit expects a window of at least 1 s, m or h (600/1m, 100/s); got '${text}'`,
    );
  }
  return { max: Number(match[1]), windowMs: count * (windowUnits[unit] ?? 1000) };
}

/** A budget written as `--rate-limit` takes it (`6000/1m`), in the largest whole unit. */
export function rateLimitText(limit: RateLimit): string {
  const [unit, ms] = Object.entries(windowUnits)
    .reverse()
    .find(([, unitMs]) => limit.windowMs % unitMs === 0) ?? ["s", 1000];
  return `${limit.max}/${limit.windowMs / ms}${unit}`;
}
