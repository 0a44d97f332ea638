import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { type CommandSpec, type GroupSpec, isGroup } from "../../src/cli/command-spec.js";
import { commandTree } from "../../src/cli/commands/tree.js";
import { loadHandler } from "../../src/cli/module-loader.js";
import { buildProgram } from "../../src/cli/program.js";

/** Parses argv and returns what the chosen command would receive, without running it. */
async function parse(argv: string[]) {
  let captured: { spec: CommandSpec; options: Record<string, unknown>; args: string[] } | undefined;
  let errors = "";
  const program = buildProgram(
    {
      writeOut: () => {},
      writeErr: (t) => {
        errors += t;
      },
    },
    async (spec, command: Command) => {
      captured = { spec, options: command.optsWithGlobals(), args: command.args };
    },
  );
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    return { error: (error as { code?: string }).code, errors };
  }
  return { captured, errors };
}

function leaves(
  specs: (CommandSpec | GroupSpec)[],
  prefix: string[] = [],
): { path: string[]; spec: CommandSpec }[] {
  return specs.flatMap((s) =>
    isGroup(s) ? leaves(s.commands, [...prefix, s.name]) : [{ path: [...prefix, s.name], spec: s }],
  );
}

describe("command-line parsing", () => {
  it("maps plans list flags to options, global flags included wherever they stand", async () => {
    const { captured } = await parse([
      "--json",
      "plans",
      "list",
      "--billing-period",
      "yearly",
      "--include-private",
      "--debug",
    ]);
    expect(captured?.spec.handler).toBe("plans/list");
    expect(captured?.options).toMatchObject({
      json: true,
      billingPeriod: "yearly",
      includePrivate: true,
      debug: true,
    });
  });

  it("turns --no-color into color: false", async () => {
    const { captured } = await parse(["plans", "list", "--no-color"]);
    expect(captured?.options.color).toBe(false);
  });

  it("refuses a billing period outside the vocabulary before any request", async () => {
    const { error, errors } = await parse(["plans", "list", "--billing-period", "weekly"]);
    expect(error).toBe("commander.invalidArgument");
    expect(errors).toContain(
      "Allowed choices are monthly, quarterly, half_yearly, yearly, lifetime",
    );
  });

  it("refuses an unknown option", async () => {
    const { error } = await parse(["plans", "list", "--bogus"]);
    expect(error).toBe("commander.unknownOption");
  });

  it("gives every command a summary and at least one example in its help", async () => {
    for (const { path, spec } of leaves(commandTree)) {
      expect(spec.summary, path.join(" ")).not.toBe("");
      expect(spec.examples.length, path.join(" ")).toBeGreaterThan(0);
      for (const example of spec.examples)
        expect(example.startsWith("reseller ") || /^[A-Z_]+=|^echo /.test(example), example).toBe(
          true,
        );
    }
  });

  it("has a loadable handler exporting run() for every command", async () => {
    for (const { spec } of leaves(commandTree)) {
      await expect(loadHandler(spec.handler)).resolves.toBeTypeOf("function");
    }
  });
});
