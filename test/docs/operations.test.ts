import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { migrationProvider } from "../../src/service/db/migrations/index.js";

const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");

describe("the operations guide stays true to the code", () => {
  it("shows /readyz answering with this version's number of migrations", async () => {
    const count = Object.keys(await migrationProvider.getMigrations()).length;
    expect(operations).toContain(`"migrations":{"applied":${count}}`);
  });
});
