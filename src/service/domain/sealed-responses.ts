import { createHmac } from "node:crypto";
import { decrypt, encrypt, joined, split } from "./aes-gcm.js";

/**
 * An answer that reveals a secret (a new token, a webhook signing secret) is kept for its
 * Idempotency-Key's replay sealed: AES-256-GCM under a key derived from the bearer token that
 * asked, which the service stores only as a SHA-256 hash. The database alone never yields the
 * secret; the caller's retry, which presents the same token, opens it.
 */

const marker = "sealed:v1:";

/** The key of one stored answer: HMAC keyed by the caller's token (not derivable from its hash). */
function keyFor(callerSecret: string, context: string): Buffer {
  return createHmac("sha256", callerSecret).update(`idempotent response\n${context}`).digest();
}

/** `body` sealed for the caller holding `callerSecret`; `context` names the answer (token id, key). */
export function sealBody(body: string, callerSecret: string, context: string): string {
  const sealed = encrypt(keyFor(callerSecret, context), body, context);
  return marker + joined(sealed).toString("base64");
}

/** Whether a stored body was sealed by sealBody. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(marker);
}

/** The body sealBody sealed, or null when this secret and context do not open it. */
export function openBody(stored: string, callerSecret: string, context: string): string | null {
  if (!isSealed(stored)) return null;
  const parts = split(Buffer.from(stored.slice(marker.length), "base64"));
  if (!parts) return null;
  try {
    return decrypt(keyFor(callerSecret, context), parts, context);
  } catch {
    // A wrong key or a changed record fails the tag check: nothing to replay.
    return null;
  }
}
