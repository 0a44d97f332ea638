/**
 * Text that no database of the service stores as sent: PostgreSQL refuses U+0000 in text, and
 * half of a surrogate pair (a cut emoji) is not UTF-8 at all, so SQLite would keep replacement
 * characters instead. Both are refused where text comes in, the same on either engine.
 */
const unstorable = /[\0\uD800-\uDFFF]/u;
const everyUnstorable = new RegExp(unstorable.source, "gu");

/** Why `text` cannot be stored as it is, or null when it can. */
export function unstorableTextProblem(text: string): string | null {
  const found = unstorable.exec(text);
  if (found === null) return null;
  return found[0] === "\0"
    ? "contains the NUL character (U+0000), which is not text"
    : "contains half of a surrogate pair (a cut emoji or character), which is not valid Unicode";
}

/** `text` with each character that cannot be stored shown as U+FFFD, for quoting it back. */
export function storableCopy(text: string): string {
  return text.replace(everyUnstorable, "\uFFFD");
}

/**
 * Strings longer than this are not searched: the only field that long is an import's base64
 * `csv`, which its own check refuses unless it is base64, and a search of 100 MB would hold the
 * event loop.
 */
const searchedLength = 1024 * 1024;

/** Where the first unstorable text of a request part is, and why, named as a detail names it. */
export interface UnstorableText {
  path: (string | number)[];
  message: string;
}

/** A value the walk has still to look at, with the way to it (the path is built only if needed). */
interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | null = visit; at !== null && at.key !== null; at = at.parent) {
    path.push(at.key);
  }
  return path.reverse();
}

/**
 * The path of the first string (or object key) in `value` that cannot be stored, and why. It
 * walks with a stack of its own rather than by recursion, and keeps each value's path as a
 * link to its parent: a body nested a million levels deep is read to its end in linear time
 * instead of overflowing the call stack.
 */
export function firstUnstorableText(value: unknown): UnstorableText | null {
  const pending: Visit[] = [{ value, key: null, parent: null }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const item = visit.value;
    if (typeof item === "string") {
      if (item.length > searchedLength) continue;
      const problem = unstorableTextProblem(item);
      if (problem === null) continue;
      // Named as every detail names its field: "first_name contains …".
      return {
        path: pathOf(visit),
        message: visit.key === null ? problem : `${visit.key} ${problem}`,
      };
    }
    if (item === null || typeof item !== "object") continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) {
        pending.push({ value: item[i], key: i, parent: visit });
      }
      continue;
    }
    const entries = Object.entries(item);
    for (const [key] of entries) {
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem) {
        // The field is named as it can be shown back, the bad character as U+FFFD.
        const shown = storableCopy(key);
        return { path: [...pathOf(visit), shown], message: `the name '${shown}' ${keyProblem}` };
      }
    }
    // Pushed last to first, so the first field is looked at first, as the body reads.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i] as [string, unknown];
      pending.push({ value: child, key, parent: visit });
    }
  }
  return null;
}
