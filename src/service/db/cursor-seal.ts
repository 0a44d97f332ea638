import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Db } from "./database.js";
import { integerKeyMax } from "./schema.js";

/**
 * The cursors of lists ordered by an integer key (contacts and tags by `seq`, which counts
 * rows across the whole service) carry that key sealed: in the clear, a tenant comparing two of
 * its cursors could tell how many contacts every other tenant created in between.
 *
 * A cursor is one AES-256 block: the key (4 bytes), the rows shown so far (6 bytes) and 6 zero
 * bytes, encrypted under a key kept in the `settings` table, so that every instance (and a
 * database moved by `admin copy`) opens the others' cursors. One block under a block cipher is
 * a keyed permutation: the cursor shows nothing but whether two positions are the same, which
 * the caller knows anyway, and a forged one opens to zeros with a chance of 2^-48. That makes a
 * 22-character cursor that costs about 2 µs to make, where AES-GCM's nonce and tag cost 13 µs and
 * 40 more characters on every page a client reads.
 */

/** Seals an integer key and a count into a cursor, and opens one. */
export interface CursorSeal {
  /** The cursor of a walk that has shown `seen` rows and stopped at `after`. */
  close(after: number, seen: number): string;
  /** What `close` sealed, or null when the text is not a cursor sealed under this key. */
  open(text: string): { after: number; seen: number } | null;
}

const settingsKey = "cursor_key";
const blockBytes = 16;
/** 2^48 - 1: the most rows a walk can have shown, in the block's 6 bytes. */
const seenMax = 281_474_976_710_655;

/** A seal under a 32-byte key. */
export function cursorSealWith(key: Buffer): CursorSeal {
  // ECB without padding keeps no state between whole blocks, so one cipher object serves every
  // cursor; only whole 16-byte blocks are ever passed (a partial one would be held back).
  const cipher = createCipheriv("aes-256-ecb", key, null).setAutoPadding(false);
  const decipher = createDecipheriv("aes-256-ecb", key, null).setAutoPadding(false);
  return {
    close(after, seen) {
      if (!Number.isSafeInteger(after) || after < 0 || after > integerKeyMax || seen > seenMax) {
        throw new Error(`cursor-seal: ${after}/${seen} does not fit a cursor`);
      }
      const block = Buffer.alloc(blockBytes);
      block.writeUInt32BE(after, 0);
      block.writeUIntBE(seen, 4, 6);
      return cipher.update(block).toString("base64url");
    },
    open(text) {
      if (text.length !== 22) return null;
      const sealed = Buffer.from(text, "base64url");
      if (sealed.length !== blockBytes || sealed.toString("base64url") !== text) return null;
      const block = decipher.update(sealed);
      if (block.length !== blockBytes || block.readUIntBE(10, 6) !== 0) return null;
      const after = block.readUInt32BE(0);
      if (after > integerKeyMax) return null;
      return { after, seen: block.readUIntBE(4, 6) };
    },
  };
}

const seals = new WeakMap<Db, Promise<CursorSeal>>();

/** Makes this database's cursor key unless it has one (`serve` does at each start). */
export async function makeCursorKey(db: Db): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key: settingsKey, value: randomBytes(32).toString("base64") })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
}

async function loadSeal(db: Db): Promise<CursorSeal> {
  const read = () =>
    db.selectFrom("settings").select("value").where("key", "=", settingsKey).executeTakeFirst();
  let row = await read();
  if (!row) {
    // A database `serve` never started (a tool's, a test's): the first list makes the key.
    await makeCursorKey(db);
    row = await read();
  }
  const key = Buffer.from(row?.value ?? "", "base64");
  if (key.length !== 32) {
    throw new Error(
      `settings.${settingsKey} must hold 32 bytes in base64 (it holds ${key.length})`,
    );
  }
  return cursorSealWith(key);
}

/** The seal of this database's cursors, made on first use and kept for the connection's life. */
export function cursorSeal(db: Db): Promise<CursorSeal> {
  let seal = seals.get(db);
  if (!seal) {
    seal = loadSeal(db);
    // A database that did not answer is asked again next time, not remembered as failed.
    seal.catch(() => seals.delete(db));
    seals.set(db, seal);
  }
  return seal;
}
