import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** The environment variable holding the key that seals channel access tokens. */
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
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ["v1", iv, tag, data]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || data === undefined) {
        throw new Error("sealed secret has an unknown layout");
      }
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(data, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    },
  };
}
