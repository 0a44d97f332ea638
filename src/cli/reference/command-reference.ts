import type { Command } from "commander";
import { commandModel, pathKey } from "../completion/command-model.js";

/** Width the reference's help texts are wrapped at, whatever the terminal. */
const helpWidth = 100;

/** A command's `--help` as printed, examples included, at a fixed width and without colour. */
function helpText(command: Command): string {
  let text = "";
  command.configureHelp({ ...command.configureHelp(), helpWidth, showGlobalOptions: false });
  command.configureOutput({
    writeOut: (chunk) => {
      text += chunk;
    },
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text.trimEnd();
}

/** GitHub's anchor of a heading made of words and spaces. */
function anchor(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");
}

/**
 * docs/commands.md: every command's help, generated from the program as `buildProgram` makes
 * it from the command tree (the program is changed on the way, so pass one built for this).
 */
export function commandReference(program: Command): string {
  const model = commandModel(program);
  const title = (path: readonly string[]) => pathKey([model.name, ...path]);
  const contents = model.commands.map(
    (c) =>
      `${"  ".repeat(Math.max(0, c.path.length - 1))}- [${title(c.path)}](#${anchor(title(c.path))}): ${c.summary}`,
  );
  const sections = model.commands.map(
    (c) => `## ${title(c.path)}\n\n\`\`\`text\n${helpText(c.command)}\n\`\`\`\n`,
  );
  return `# Command reference

Generated from the command tree by \`npm run generate\`; do not edit by hand. Every command prints
the same text with \`--help\`, followed there by its "Global Options": the options of
\`${model.name}\` itself (\`--json\`, \`--quiet\`, \`--base-url\`, …), listed once below under
\`${model.name}\`, which work with every command.

${contents.join("\n")}

${sections.join("\n")}`;
}
