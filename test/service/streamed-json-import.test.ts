import { readFile, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import type { JsonBytesParser } from "../../src/service/plugins/json-bodies.js";
import { readImportJsonBody } from "../../src/service/plugins/streamed-json-import.js";

const request = { headers: {} } as FastifyRequest;
const parseWhole: JsonBytesParser = (_request, bytes, done) => {
  try {
    done(null, JSON.parse(bytes.toString("utf8")));
  } catch (error) {
    done(error as Error);
  }
};

/** The body in chunks of 1, 2, 3… bytes, so every token of it is cut somewhere. */
function trickled(body: string): Readable {
  const bytes = Buffer.from(body);
  const chunks: Buffer[] = [];
  for (let at = 0, size = 1; at < bytes.length; at += size, size = (size % 7) + 1) {
    chunks.push(bytes.subarray(at, at + size));
  }
  return Readable.from(chunks);
}

/** Reads `body` as streamed (whatever its size) and returns the parsed body and the CSV decoded. */
async function streamed(body: string) {
  const { body: parsed, spooled } = await readImportJsonBody(
    request,
    trickled(body),
    parseWhole,
    0,
  );
  if (!spooled) return { parsed, csv: null };
  const csv = await readFile(spooled.file, "utf8");
  await rm(spooled.file);
  return { parsed, csv };
}

describe("a contact import's JSON body read as it streams in", () => {
  // Question marks in every alignment, so the base64 holds slashes.
  const csv =
    "phone,first_name\n+4915112345678,Ørsted???\n+4915112345679,Łukasz????\n+4915112345670,Ana?????\n+4915112345671,@\n";
  const text = Buffer.from(csv).toString("base64");
  expect(text).toContain("/");
  expect(text).toContain("A");

  it("decodes the csv however the body is cut into chunks, and keeps the other fields", async () => {
    const { parsed, csv: decoded } = await streamed(
      `{ "default_country" : "DE", "mapping": {"csv": "phone", "x": ["a", {"csv": 1}]}, "csv" : "${text}", "duplicate_handling":"skip" }`,
    );
    expect(decoded).toBe(csv);
    expect(parsed).toEqual({
      default_country: "DE",
      mapping: { csv: "phone", x: ["a", { csv: 1 }] },
      csv: expect.stringMatching(/^\(a CSV file of \d+ bytes, SHA-256 [0-9a-f]{64}/),
      duplicate_handling: "skip",
    });
  });

  it("reads escaped slashes, escaped line breaks and \\u escapes, cut anywhere", async () => {
    const escaped = (text.match(/.{1,8}/g) ?? [])
      .join("\n")
      .replaceAll("/", "\\/")
      .replaceAll("\n", "\\n")
      .replaceAll("A", "\\u0041");
    expect(escaped).toContain("\\/");
    const { csv: decoded } = await streamed(`{"csv":"${escaped}"}`);
    expect(decoded).toBe(csv);
  });

  it("reads a key written with escapes as the key it is", async () => {
    const { csv: decoded } = await streamed(`{"\\u0063sv":"${text}"}`);
    expect(decoded).toBe(csv);
  });

  it("refuses a csv that is not a string as the body's check would, and a top-level array", async () => {
    await expect(streamed(`{"csv": 12, "note": "csv"}`)).rejects.toMatchObject({
      details: [{ field: "csv", message: "csv must be the CSV file encoded as base64" }],
    });
    await expect(streamed(`  [{"csv": "${text}"}]`)).rejects.toMatchObject({
      details: [{ field: "(body)" }],
    });
  });

  it("leaves a csv key of a nested object to the body's check", async () => {
    const { parsed, csv: decoded } = await streamed(`{"mapping": {"csv": 12}, "note": "csv"}`);
    expect(decoded).toBeNull();
    expect(parsed).toEqual({ mapping: { csv: 12 }, note: "csv" });
  });

  it("refuses escapes that stand for no base64 letter, naming csv", async () => {
    for (const bad of ['\\"', "\\\\", "\\b", "\\u00zz", "\\u00e9"]) {
      await expect(streamed(`{"csv":"QUJD${bad}"}`), bad).rejects.toMatchObject({
        details: [{ field: "csv", message: expect.stringContaining("is not base64") }],
      });
    }
  });

  it("refuses text after the base64's padding", async () => {
    await expect(streamed(`{"csv":"QQ==QUJD"}`)).rejects.toMatchObject({
      details: [{ field: "csv" }],
    });
  });
});
