import { isUnlimited } from "../../contract/vocabulary.js";

/** A whole number as people read it: `1,234`. */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** A plan's ceiling as people read it, `5,000` or `unlimited`; `format` for piped output. */
export function ceilingText(ceiling: number, format: (n: number) => string = count): string {
  return isUnlimited(ceiling) ? "unlimited" : format(ceiling);
}

/** A count with its noun as people read it: "1 row", "1,234 rows" (`plural` when not noun + s). */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : plural}`;
}
