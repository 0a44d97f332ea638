// Kept: the colour sequences of our own paint (SGR). Dropped: every other control character,
// so a contact named "\u001b[2J…" cannot clear or retitle the terminal that lists it, and a tab
// or line break in a value cannot push a table's columns out of line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const controls = /(\u001b\[[0-9;]*m)|(\r\n|[\t\r\n])|[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the service made safe to print at a terminal: one line (a table's cell) or, with
 * `lines: "many"`, its line breaks kept (a record's field, free text).
 */
export function terminalText(text: string, lines: "one" | "many"): string {
  return text.replace(controls, (_match, colour: string | undefined, space: string | undefined) => {
    if (colour !== undefined) return colour;
    if (space === undefined) return "";
    return lines === "many" && space !== "\t" ? "\n" : " ";
  });
}
