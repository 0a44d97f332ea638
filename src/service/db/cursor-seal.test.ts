import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cursorSealWith } from "./cursor-seal.js";

describe("sealed cursors", () => {
  const seal = cursorSealWith(randomBytes(32));

  it("opens what it closed, up to the largest key and a walk of 2^48 - 1 rows", () => {
    for (const [after, seen] of [
      [0, 0],
      [1, 20],
      [2_147_483_647, 281_474_976_710_655],
    ] as const) {
      expect(seal.open(seal.close(after, seen))).toEqual({ after, seen });
    }
  });

  it("refuses a cursor sealed under another key, altered, or of another length", () => {
    const cursor = seal.close(42, 20);
    const other = cursorSealWith(randomBytes(32)).close(42, 20);
    const altered = `${cursor[0] === "A" ? "B" : "A"}${cursor.slice(1)}`;
    for (const text of [other, altered, cursor.slice(1), `${cursor}A`, "", "!".repeat(22)]) {
      expect(seal.open(text)).toBeNull();
    }
  });

  it("keeps opening cursors after refusing text of any length (no block is left half-read)", () => {
    const cursor = seal.close(7, 3);
    for (const text of ["abc", "x".repeat(21), "x".repeat(23), "y".repeat(22)]) seal.open(text);
    expect(seal.open(cursor)).toEqual({ after: 7, seen: 3 });
  });

  it("refuses to seal a key past the integer keys", () => {
    expect(() => seal.close(2 ** 31, 0)).toThrow();
    expect(() => seal.close(-1, 0)).toThrow();
  });
});
