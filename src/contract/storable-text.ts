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
