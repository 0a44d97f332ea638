// `npm run generate`: writes the files generated from the command tree (completions/ and
// docs/commands.md). Run it after changing a command; test/cli/generated-files.test.ts fails
// while they are stale.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generatedFiles } from "../src/cli/reference/generated-files.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
for (const file of generatedFiles()) {
  const target = path.join(root, file.path);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, file.content);
  process.stdout.write(`wrote ${file.path}\n`);
}
