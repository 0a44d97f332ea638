import { decrypt, encrypt } from "../domain/aes-gcm.js";

/** The environment variable holding the key that seals channel access tokens and webhook secrets. */
export const secretKeyVariable = "RESELLER_SECRET_KEY";

/** Seals and opens secrets at rest with AES-256-GCM; the key never leaves this object. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

/**
 * Reads a 32-byte base64 key (as `RESELLER_SECRET_KEY` holds it); throws a message saying what
 * is wrong and how to make one, so `serve` can refuse to start with a bad key.
 */
export function secretBoxFromKey(base64Key: string): SecretBox {
  const key = Buffer.from(base64Key.trim(), "base64");
  if (key.length !== 32) {
    throw new Error(
      `${secretKeyVariable} must be 32 bytes in base64 (got ${key.length} bytes); make one with: openssl rand -base64 32`,
    );
  }
  return {
    // Layout: v1.<iv>.<tag>.<ciphertext>, each base64url; a fresh 12-byte IV per seal.
    seal(plain) {
      const { iv, tag, data } = encrypt(key, plain);
      return ["v1", iv, tag, data]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || data === undefined) {
        throw new Error("sealed secret has an unknown layout");
      }
      const part = (text: string) => Buffer.from(text, "base64url");
      return decrypt(key, { iv: part(iv), tag: part(tag), data: part(data) });
    },
  };
}
