import type { CommandSpec } from "../../command-spec.js";

/** `reseller completion bash|zsh|fish`: a completion script generated from the command tree. */
export const completionCommand: CommandSpec = {
  name: "completion",
  summary: "Print a shell completion script for bash, zsh or fish",
  description: `Prints a completion script generated from the command tree: commands, options and their values (billing periods, statuses, scopes, …). The repository's completions/ folder holds the same scripts.

Install it once, then open a new shell:
  bash  add \`source <(reseller completion bash)\` to ~/.bashrc, or save it as
        ~/.local/share/bash-completion/completions/reseller
  zsh   reseller completion zsh > "\${fpath[1]}/_reseller" (a folder on $fpath),
        or add \`source <(reseller completion zsh)\` to ~/.zshrc after compinit
  fish  reseller completion fish > ~/.config/fish/completions/reseller.fish`,
  arguments: [
    { name: "shell", description: "the shell to complete for", choices: ["bash", "zsh", "fish"] },
  ],
  examples: [
    "reseller completion bash > ~/.local/share/bash-completion/completions/reseller",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expansion, not a template
    'reseller completion zsh > "${fpath[1]}/_reseller"',
    "reseller completion fish > ~/.config/fish/completions/reseller.fish",
  ],
  handler: "completion/completion",
};
