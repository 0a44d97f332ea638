import type { Command } from "commander";
import { bashScript } from "./bash.js";
import { commandModel } from "./command-model.js";
import { fishScript } from "./fish.js";
import { zshScript } from "./zsh.js";

export const completionShells = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof completionShells)[number];

/** The completion script of a shell, generated from the program as built from the command tree. */
export function completionScript(shell: CompletionShell, program: Command): string {
  const model = commandModel(program);
  switch (shell) {
    case "bash":
      return bashScript(model);
    case "zsh":
      return zshScript(model);
    case "fish":
      return fishScript(model);
  }
}

/** Where `completions/` keeps each shell's script (the names each shell looks for). */
export const completionFiles: Record<CompletionShell, string> = {
  bash: "completions/reseller.bash",
  zsh: "completions/_reseller",
  fish: "completions/reseller.fish",
};
