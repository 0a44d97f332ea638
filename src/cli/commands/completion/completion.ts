import type { Handler } from "../../command-spec.js";
import { type CompletionShell, completionScript } from "../../completion/scripts.js";
import { textView } from "../../output/view.js";
import { buildProgram } from "../../program.js";

/** `reseller completion <shell>`: the script, read from the command tree as it is now. */
export const run: Handler = async (_ctx, { args }) => {
  const program = buildProgram({ writeOut: () => {}, writeErr: () => {} }, async () => {});
  const script = completionScript(args[0] as CompletionShell, program);
  return { data: script, view: textView(() => script) };
};
