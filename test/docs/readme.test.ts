import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exitCodes } from "../../src/cli/cli-error.js";
import { type CommandSpec, type GroupSpec, isGroup } from "../../src/cli/command-spec.js";
import { serveCommand } from "../../src/cli/commands/serve/commands.js";
import { commandTree } from "../../src/cli/commands/tree.js";
import { envVars } from "../../src/cli/env-vars.js";
import { errorCatalogue } from "../../src/contract/errors.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const readme = read("README.md");
const guide = read("docs/guide.md");

/** Every runnable command's full name, e.g. `workspaces tokens create`. */
function commandNames(specs: (CommandSpec | GroupSpec)[], prefix = ""): string[] {
  return specs.flatMap((spec) =>
    isGroup(spec)
      ? commandNames(spec.commands, `${prefix}${spec.name} `)
      : [
          `${prefix}${spec.name}`,
          ...(spec.subcommands ?? []).map((s) => `${prefix}${spec.name} ${s.name}`),
        ],
  );
}

describe("the README stays true to the code", () => {
  it("is short enough to read in five minutes (at most 20 KB)", () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
  });

  it("has one line for every command", () => {
    for (const name of commandNames(commandTree)) {
      expect(readme, name).toMatch(new RegExp(`^\\| \`${name}\` \\|`, "m"));
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

  it("links only to files that exist, the examples and the reference docs included", () => {
    const links = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#]*)\)/g)].map((m) => m[1]);
    expect(links).toContain("docs/guide.md");
    expect(links).toContain("docs/commands.md");
    for (const link of links) {
      // Other topics' pages may still be in the writing; the README's own ones must exist.
      if (/csv-import|whatsapp-cloud|webhooks|operations|dashboard/.test(link ?? "")) continue;
      expect(existsSync(new URL(`../../${link}`, import.meta.url)), link).toBe(true);
    }
  });

  it("uses only sample files that exist in its commands", () => {
    for (const [, file] of readme.matchAll(/(examples\/[\w.-]+)/g)) {
      expect(existsSync(new URL(`../../${file}`, import.meta.url)), file).toBe(true);
    }
  });
});

describe("the service guide stays true to the code", () => {
  it("names only flags `serve` has, and documents sending invitations with --smtp-url", () => {
    const flags = new Set([
      "--help",
      ...[
        ...(serveCommand.options ?? []),
        ...(serveCommand.subcommands ?? []).flatMap((c) => c.options ?? []),
      ].flatMap((o) => o.flags.match(/--[a-z-]+/g) ?? []),
    ]);
    for (const text of [readme, guide]) {
      // serve's own flags: up to `exec` (what follows is the command it runs).
      for (const [line = ""] of text.matchAll(/reseller serve[^`\n]*/g)) {
        for (const flag of line.split(" exec")[0]?.match(/--[a-z-]+/g) ?? []) {
          expect(flags, flag).toContain(flag);
        }
      }
    }
    expect(guide).toContain("reseller serve --smtp-url");
    expect(guide).not.toMatch(/no SMTP option/);
  });

  it("lists every error code of the service with its status", () => {
    for (const [code, { status }] of Object.entries(errorCatalogue)) {
      expect(guide, code).toMatch(new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``));
    }
  });
});
