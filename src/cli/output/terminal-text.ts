// What reaches a terminal from the service's data carries no control character of its own: a
// contact named "\u001b[2J…" cannot clear or retitle the terminal that lists it, "\u001b[8m"
// cannot hide what follows, and a tab or line break cannot push a table's columns out of line.
// Data is cleaned before paint adds our colours (withoutControls); what is printed keeps only
// those colours, and none with colour off (terminalText).

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const dataControls = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const printed = /(\u001b\[[0-9;]*m)|(\r\n|[\t\r\n])|[\u0000-\u001f\u007f-\u009f]/g;

/** The value with every control character removed from its strings, tabs and line breaks aside. */
export function withoutControls<T>(value: T): T {
  if (typeof value === "string") return value.replace(dataControls, "") as T;
  if (Array.isArray(value)) return value.map(withoutControls) as T;
  const prototype = value !== null && typeof value === "object" ? Object.getPrototypeOf(value) : 0;
  if (prototype === Object.prototype || prototype === null) {
    return Object.fromEntries(
      Object.entries(value as object).map(([key, field]) => [key, withoutControls(field)]),
    ) as T;
  }
  return value;
}

/**
 * Text made safe to print at a terminal: our colour sequences kept when colour is on, every
 * other control character dropped; one line (a table's cell) or, with `lines: "many"`, its line
 * breaks kept (a record's field, free text, a message).
 */
export function terminalText(text: string, lines: "one" | "many", colour: boolean): string {
  return text.replace(printed, (_match, sgr: string | undefined, space: string | undefined) => {
    if (sgr !== undefined) return colour ? sgr : "";
    if (space === undefined) return "";
    return lines === "many" && space !== "\t" ? "\n" : " ";
  });
}
