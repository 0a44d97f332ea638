import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exitCodes } from "../../src/cli/cli-error.js";
import { envVars } from "../../src/cli/env-vars.js";
import { errorCatalogue } from "../../src/contract/errors.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("the README stays true to the code", () => {
  it("lists every error code of the service with its status", () => {
    for (const [code, { status }] of Object.entries(errorCatalogue)) {
      expect(readme, code).toMatch(new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``));
    }
  });

  it("lists every exit code of the CLI", () => {
    for (const { code, meaning } of Object.values(exitCodes)) {
      expect(readme, meaning).toMatch(new RegExp(`\\|\\s*${code}\\s*\\|`));
    }
  });

  it("documents every environment variable the CLI reads", () => {
    for (const name of Object.keys(envVars)) expect(readme, name).toContain(name);
  });
});
