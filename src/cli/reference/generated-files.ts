import type { Command } from "commander";
import { completionFiles, completionScript, completionShells } from "../completion/scripts.js";
import { buildProgram } from "../program.js";
import { commandReference } from "./command-reference.js";

/** The program as the CLI builds it, writing nowhere and running nothing. */
function program(): Command {
  return buildProgram({ writeOut: () => {}, writeErr: () => {} }, async () => {});
}

/**
 * Files generated from the command tree and kept in the repository: the completion scripts
 * and the command reference. `npm run generate` writes them; a test fails when they are stale.
 */
export function generatedFiles(): { path: string; content: string }[] {
  return [
    ...completionShells.map((shell) => ({
      path: completionFiles[shell],
      content: completionScript(shell, program()),
    })),
    { path: "docs/commands.md", content: commandReference(program()) },
  ];
}
