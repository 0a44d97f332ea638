import { stripVTControlCharacters } from "node:util";
import type { Io } from "../io.js";

/** Terminal rows a block of text takes, long lines wrapping at the terminal's width. */
function rowsOf(text: string, columns: number): number {
  return text
    .split("\n")
    .map((line) => stripVTControlCharacters(line).length)
    .reduce((rows, width) => rows + Math.max(1, Math.ceil(width / columns)), 0);
}

/** Redraws a block of lines in place on a terminal: up over the last frame, clear, write. */
export function liveFrame(stderr: Io["stderr"]) {
  let lines = 0;
  const write = (text: string) => stderr.write(text);
  return {
    draw(text: string) {
      write(`${lines > 0 ? `\x1b[${lines}A\r` : ""}\x1b[J${text}\n`);
      lines = rowsOf(text, stderr.columns && stderr.columns > 0 ? stderr.columns : 80);
    },
    clear() {
      if (lines > 0) write(`\x1b[${lines}A\r\x1b[J`);
      lines = 0;
    },
  };
}
