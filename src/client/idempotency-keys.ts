/**
 * The longest `--idempotency-key` taken: the service keeps keys of up to 255 characters, and a
 * command that posts more than once adds `-2`, `-3`… to its later POSTs' keys.
 */
export const longestIdempotencyKey = 250;

/**
 * The Idempotency-Keys of one invocation's POSTs: `base` (a random one when not given) on the
 * first, so `--idempotency-key K` sends K itself; `<base>-2`, `<base>-3`… on any later one (a
 * command that posts more than once, such as onboarding, or a launch after its preview).
 */
export function idempotencyKeySequence(base?: string): () => string {
  let posts = 0;
  let first = base;
  return () => {
    posts += 1;
    // Drawn at the first POST: the global `crypto` loads Node's Web Crypto (about 5 ms), which a
    // command that only reads never needs.
    first ??= globalThis.crypto.randomUUID();
    return posts === 1 ? first : `${first}-${posts}`;
  };
}
