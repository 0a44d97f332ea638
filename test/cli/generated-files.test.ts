import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedFiles } from "../../src/cli/reference/generated-files.js";

const root = resolve(import.meta.dirname, "../..");

describe("files generated from the command tree", () => {
  for (const file of generatedFiles()) {
    it(`${file.path} matches the command tree`, () => {
      const target = resolve(root, file.path);
      const onDisk = existsSync(target) ? readFileSync(target, "utf8") : undefined;
      expect(
        onDisk === file.content,
        `${file.path} is ${onDisk === undefined ? "missing" : "stale"}: run \`npm run generate\` and commit the result`,
      ).toBe(true);
    });
  }
});
