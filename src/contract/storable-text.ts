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

/** Where an unstorable text of a request part is, and why, named as a detail names it. */
export interface UnstorableText {
  /** A field's name (`key`) or a value (`value`). */
  kind: "key" | "value";
  /** The way to the text, an unstorable key shown with U+FFFD as the answer can show it. */
  path: (string | number)[];
  /** The same way with the key as it was sent, to match the schema's own findings. */
  sentPath: (string | number)[];
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

/** The most list places a message names after its field: a body nested a million lists deep. */
const namedPlaces = 4;

/**
 * A field named as the schema's messages name it, by its own key (`city` of `custom_fields`),
 * with the item's place when it is one of a list's (`tags.0`; `mapping.….0.0` deep down).
 */
function fieldName(path: (string | number)[]): string {
  let from = path.length - 1;
  while (from > 0 && typeof path[from] === "number") from--;
  const places = path.length - 1 - from;
  if (places <= namedPlaces) return path.slice(from).join(".");
  return [path[from], "…", ...path.slice(-namedPlaces)].join(".");
}

/**
 * How many path steps the findings may hold together: each finding copies its whole path (and
 * zod copies it again), so a body a million levels deep holding a hundred bad strings would
 * build a hundred million steps. Past the budget the walk stops with what it has found.
 */
const pathBudget = 10_000;

/**
 * Every string (or object key) in `value` that cannot be stored, up to `limit` and as long as
 * their paths fit the budget, in the order the body reads. It walks with a stack of its own
 * rather than by recursion, and keeps each value's path as a link to its parent: a body nested a
 * million levels deep is read in linear time instead of overflowing the call stack.
 */
export function unstorableTexts(value: unknown, limit = 100): UnstorableText[] {
  const found: UnstorableText[] = [];
  let steps = 0;
  const full = () => found.length >= limit || steps >= pathBudget;
  const add = (finding: UnstorableText) => {
    found.push(finding);
    steps += finding.path.length;
  };
  const pending: Visit[] = [{ value, key: null, parent: null }];
  for (let visit = pending.pop(); visit !== undefined && !full(); visit = pending.pop()) {
    const item = visit.value;
    if (typeof item === "string") {
      if (item.length > searchedLength) continue;
      const problem = unstorableTextProblem(item);
      if (problem === null) continue;
      const path = pathOf(visit);
      // Named as every detail names its field: "first_name contains …".
      const message = path.length === 0 ? problem : `${fieldName(path)} ${problem}`;
      add({ kind: "value", path, sentPath: path, message });
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) {
        pending.push({ value: item[i], key: i, parent: visit });
      }
      continue;
    }
    const entries = Object.entries(item);
    const readable: [string, unknown][] = [];
    for (const entry of entries) {
      const [key] = entry;
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem === null) {
        readable.push(entry);
      } else if (!full()) {
        // The field is named as it can be shown back, the bad character as U+FFFD; its value
        // is not read, its name being refused already.
        const shown = storableCopy(key);
        const at = pathOf(visit);
        add({
          kind: "key",
          path: [...at, shown],
          sentPath: [...at, key],
          message: `the name '${shown}' ${keyProblem}`,
        });
      }
    }
    // Pushed last to first, so the first field is looked at first, as the body reads.
    for (let i = readable.length - 1; i >= 0; i--) {
      const [key, child] = readable[i] as [string, unknown];
      pending.push({ value: child, key, parent: visit });
    }
  }
  return found;
}
