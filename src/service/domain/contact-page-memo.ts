import { dataVersionOf } from "../db/data-version.js";
import type { Db } from "../db/database.js";

/**
 * The contact pages last answered, kept while the database has not changed at all (see
 * dataVersionOf): a client polling its first page, or several reading the same list, is answered
 * without reading the contacts again. Any write anywhere starts over, so a page is never older
 * than the data; where no version can be trusted (PostgreSQL, an open transaction) nothing is
 * kept. The workspace is checked against the caller before this is asked.
 */
interface Remembered<T> {
  version: string;
  pages: Map<string, T>;
}

/** Enough for the pages a few busy clients poll; a 100-row page is about 40 KB. */
const pagesKept = 128;

const memos = new WeakMap<Db, Remembered<unknown>>();

/**
 * The page `key` read by `read`, or the same page remembered since the database last changed
 * (the same object for every caller: callers only read it).
 */
export async function rememberedPage<T>(db: Db, key: string, read: () => Promise<T>): Promise<T> {
  const version = dataVersionOf(db);
  if (version === null) return read();
  let memo = memos.get(db) as Remembered<T> | undefined;
  if (memo?.version !== version) {
    memo = { version, pages: new Map() };
    memos.set(db, memo);
  }
  const kept = memo.pages.get(key);
  if (kept !== undefined) {
    // Kept longest is the page asked for most recently: a walk through many pages by cursor
    // does not push out the first page a client polls.
    memo.pages.delete(key);
    memo.pages.set(key, kept);
    return kept;
  }
  const page = await read();
  // Kept only if nothing was written meanwhile: the page may show a write made after `version`,
  // and is then simply not kept (the next reader sees a newer version).
  if (memos.get(db) === memo && dataVersionOf(db) === version) {
    if (memo.pages.size >= pagesKept) {
      const oldest = memo.pages.keys().next().value;
      if (oldest !== undefined) memo.pages.delete(oldest);
    }
    memo.pages.set(key, page);
  }
  return page;
}
