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

/** The path of the first string (or object key) in `value` that cannot be stored, and why. */
export function firstUnstorableText(
  value: unknown,
  path: (string | number)[] = [],
): UnstorableText | null {
  if (typeof value === "string") {
    if (value.length > searchedLength) return null;
    const problem = unstorableTextProblem(value);
    // Named as every detail names its field: "first_name contains …".
    const leaf = path.at(-1);
    return problem === null
      ? null
      : { path, message: leaf === undefined ? problem : `${leaf} ${problem}` };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstUnstorableText(item, [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem) {
        // The field is named as it can be shown back, the bad character as U+FFFD.
        const shown = storableCopy(key);
        return { path: [...path, shown], message: `the name '${shown}' ${keyProblem}` };
      }
      const found = firstUnstorableText(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
