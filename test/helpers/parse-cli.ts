import type { Command } from "commander";
import type { CommandSpec } from "../../src/cli/command-spec.js";
import { buildProgram } from "../../src/cli/program.js";

/** What a parse reached: the command and its options, or commander's error code and text. */
export interface Parsed {
  captured?: { spec: CommandSpec; options: Record<string, unknown>; args: string[] };
  error?: string | undefined;
  errors: string;
}

/** Parses argv with the real command tree and returns what the command would receive, running nothing. */
export async function parse(argv: string[]): Promise<Parsed> {
  let captured: Parsed["captured"];
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
