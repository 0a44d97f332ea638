import { randomBytes } from "node:crypto";
import { webhookSecretPrefix } from "../../contract/webhooks.js";
import type { SecretBox } from "./secret-box.js";

/**
 * A stored secret sealed with RESELLER_SECRET_KEY: `sealed:<its last four characters>:<the
 * SecretBox's seal>`. The last four stay readable for the endpoint's `secret_hint`, which is
 * shown without the key; a database, a backup or an `admin copy` alone no longer lets anyone
 * sign events as the service.
 */
const sealedPrefix = "sealed:";

/** A new signing secret: `whsec_` and 32 random bytes in base64url. */
export function newWebhookSecret(): string {
  return `${webhookSecretPrefix}${randomBytes(32).toString("base64url")}`;
}

/** The signing secret as it is stored: sealed when the service has a key, as it is otherwise. */
export function storedSigningSecret(plain: string, secrets: SecretBox | null): string {
  return secrets ? `${sealedPrefix}${plain.slice(-4)}:${secrets.seal(plain)}` : plain;
}

/** Whether a stored secret is still the plain one (stored before the service had a key). */
export function isPlainSigningSecret(stored: string): boolean {
  return !stored.startsWith(sealedPrefix);
}

/** The secret's hint (`whsec_…abcd`), read without opening it. */
export function signingSecretHint(stored: string): string {
  const last = stored.startsWith(sealedPrefix)
    ? stored.slice(sealedPrefix.length, sealedPrefix.length + 4)
    : stored.slice(-4);
  return `${webhookSecretPrefix}…${last}`;
}

/**
 * The secret to sign with: a stored one as it is (written before a key was set, or without
 * one), a sealed one opened; or why it cannot be opened (no key, another key), which the
 * delivery records as its attempt's error.
 */
export function openSigningSecret(
  stored: string,
  secrets: SecretBox | null,
): { secret: string } | { problem: string } {
  if (!stored.startsWith(sealedPrefix)) return { secret: stored };
  if (!secrets) {
    return {
      problem:
        "its signing secret is sealed and this instance has no RESELLER_SECRET_KEY to open it",
    };
  }
  try {
    return { secret: secrets.open(stored.slice(stored.indexOf(":", sealedPrefix.length) + 1)) };
  } catch {
    return {
      problem:
        "its signing secret was sealed under another RESELLER_SECRET_KEY; set that key, or create the endpoint again",
    };
  }
}
