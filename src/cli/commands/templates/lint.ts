import { reviewFindings } from "../../../contract/template-review-rules.js";
import { checkTemplate } from "../../../contract/template-rules.js";
import { exitCodes, usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { showPreview } from "./template-actions.js";
import { problemTable } from "./template-format.js";
import { readTemplateFile } from "./template-input.js";

/**
 * `reseller templates lint FILE`: the service's template rules, offline. Exit 0 when valid (the
 * verdict on stderr, with what the review's content rules would still reject); otherwise every
 * problem (field, rule, message) on stdout and exit 2 (caught before any request, as templates
 * create's own check), with the service's error code. So is a file that cannot be read or is
 * not JSON.
 */
export const run: Handler = async (ctx, { args, options }) => {
  // `--file` as `templates create` takes it, or the file's name alone.
  const named = stringOption(options, "file");
  if (named !== undefined && args[0] !== undefined && named !== args[0]) {
    throw usageError(`Two files given: '${args[0]}' and --file '${named}'; lint one at a time.`);
  }
  const file = args[0] ?? named;
  if (file === undefined) {
    throw usageError(
      "Missing the file to check.",
      "reseller templates lint FILE (or --file FILE).",
    );
  }
  const template = await readTemplateFile(ctx, file);
  const checked = checkTemplate(template);
  const { problems } = checked;
  if (checked.ok) {
    const value = template as { name?: unknown; language?: unknown };
    showPreview(ctx, template);
    const review = reviewFindings(checked.template);
    const verdict = `✓ ${file}: ${String(value.name)} (${String(value.language)}) follows every rule.`;
    // A verdict for people, not data: on stderr, so that piped stdout holds only problems.
    return {
      data: { file, valid: true, problems: [], review },
      message:
        review.length === 0
          ? verdict
          : `${verdict}\nThe review may still reject it (the sandbox does; WhatsApp rejects or recategorises such templates):\n${review.map((f) => `  ${f.reason}: ${f.detail}`).join("\n")}`,
    };
  }
  const n = problems.length;
  return {
    data: { file, valid: false, problems },
    view: problemTable(problems),
    message: `${file}: ${counted(n, "problem")}; the service would refuse this template.`,
    // Caught before any request, as templates create's own check: exit 2, with the code the
    // service would answer and each problem as a detail.
    exitCode: exitCodes.usage.code,
    errorCode: "validation_failed",
    details: problems,
  };
};
