/** A word in single quotes for bash and zsh: `it's` → `'it'\''s'`. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A word in single quotes for fish, where `\` and `'` are escaped inside them. */
export function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** A description on one line, short enough for a completion menu. */
export function oneLine(text: string, max = 90): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}
