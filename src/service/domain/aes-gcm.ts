import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM with a fresh 12-byte IV per message: the one cipher of every secret the service
 * keeps at rest (channel access tokens, dashboard sessions, replayable answers). Each caller
 * keeps its own stored layout of the three parts.
 */

/** A message encrypted: its IV, authentication tag and ciphertext. */
export interface Encrypted {
  iv: Buffer;
  tag: Buffer;
  data: Buffer;
}

/** `plain` encrypted under a 32-byte key; `aad` is authenticated, not encrypted. */
export function encrypt(key: Buffer, plain: string, aad?: string): Encrypted {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

/** The text `encrypt` encrypted; throws when the key, the AAD or any part does not match. */
export function decrypt(key: Buffer, { iv, tag, data }: Encrypted, aad?: string): string {
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
}

/** The three parts as one buffer: iv, tag, ciphertext. */
export function joined({ iv, tag, data }: Encrypted): Buffer {
  return Buffer.concat([iv, tag, data]);
}

/** The three parts of a `joined` buffer; null when it is too short to hold them. */
export function split(bytes: Buffer): Encrypted | null {
  if (bytes.length < 28) return null;
  return { iv: bytes.subarray(0, 12), tag: bytes.subarray(12, 28), data: bytes.subarray(28) };
}
