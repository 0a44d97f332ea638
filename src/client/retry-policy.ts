/** How persistent the client is; every wait is announced through `onRetry`. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Upper bound of any single wait, whatever Retry-After says. */
  maxWaitMs: number;
  /** First backoff step for network errors; doubles each time. */
  baseBackoffMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 3,
  maxWaitMs: 60_000,
  baseBackoffMs: 250,
};

/**
 * Whether the same request may succeed later, the one rule for it. A 429 or 503 says the service
 * did not take the request, so any request may be sent again. A gateway's 502 or 504 (a balancer
 * while the service restarts) may come after the service did the work, so they count only for a
 * safe request, one that does no work (`reseller listen` opening the event stream again).
 */
export function isRetryableStatus(status: number, request: { safe?: boolean } = {}): boolean {
  if (status === 429 || status === 503) return true;
  return request.safe === true && (status === 502 || status === 504);
}

/**
 * How long to wait before retry number `attempt` (1-based): what the service asked for, or an
 * exponential backoff, capped, with up to 10% jitter so many clients do not retry in step. At
 * the cap the jitter is taken off instead of added, so clients held back by a long Retry-After
 * do not all come back in the same millisecond.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  const base =
    retryAfterSeconds !== null
      ? retryAfterSeconds * 1000
      : policy.baseBackoffMs * 2 ** (attempt - 1);
  const capped = Math.min(base, policy.maxWaitMs);
  const jitter = capped * 0.1 * random();
  return Math.round(capped + jitter <= policy.maxWaitMs ? capped + jitter : capped - jitter);
}
