import {
  checkTemplate,
  templateLimits,
  variableNumbers,
} from "../../../contract/template-rules.js";
import { TemplateResponse } from "../../../contract/templates.js";
import { CliError, usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, listOption, stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { askForMissing } from "../../prompts.js";
import { checkWaitFlags, showPreview, submittedResult, templatesPath } from "./template-actions.js";
import {
  fieldWithFlag,
  givenDefinitionFlags,
  readTemplateFile,
  templateFromFlags,
} from "./template-input.js";

/**
 * `reseller templates create`: builds the template from --file or flags, checks every rule
 * locally (exit 2 listing each problem, nothing sent), previews it at a terminal, submits it
 * (or stores a draft), and with --wait waits for the operator's decision.
 */
export const run: Handler = async (ctx, input) => {
  let options = input.options;
  checkWaitFlags(options, booleanOption(options, "draft"));
  const file = stringOption(options, "file");
  let definition: unknown;
  let sources: [string, string][] = [];
  if (file !== undefined) {
    const mixed = givenDefinitionFlags(options);
    if (mixed.length > 0) {
      throw usageError(`--file cannot be combined with ${mixed.join(", ")}; put them in the file.`);
    }
    definition = await readTemplateFile(ctx, file);
  } else {
    // At a terminal, what the flags leave out is asked (a body, unless it is an OTP template).
    // Known to be missing before any question: nothing is asked in vain.
    await ctx.workspaceId();
    const asked = await askForMissing(ctx, options, [
      {
        key: "name",
        message: "Template name (lowercase letters, digits and _)",
        validate: answerFor("name"),
      },
      {
        key: "category",
        message: "Category (marketing, utility or authentication)",
        validate: (v) =>
          /^(marketing|utility|authentication)$/i.test(v.trim())
            ? true
            : "One of marketing, utility or authentication.",
      },
      { key: "language", message: "Language code (e.g. en_US)", validate: answerFor("language") },
    ]);
    const otp = String(asked.category ?? "").toLowerCase() === "authentication";
    options = otp
      ? await askForCodeButton(ctx, asked)
      : await askForExamples(
          ctx,
          await askForMissing(ctx, asked, [
            { key: "body", message: "Body text ({{1}}, {{2}}… for variables)" },
          ]),
        );
    if (givenDefinitionFlags(options).length === 0) {
      throw usageError(
        "Give the template with --file FILE, or with --name, --category, --language and --body.",
        "See `reseller templates create --help` for the flags and button SPECs.",
      );
    }
    ({ value: definition, sources } = templateFromFlags(options));
  }
  // Checked before anything is sent: the same rules the service applies.
  const check = checkTemplate(definition);
  if (!check.ok) {
    const n = check.problems.length;
    // Exit 2: cli-contract.md gives 2 to an invalid value caught before any request.
    throw new CliError(
      "usage",
      `The template breaks ${counted(n, "rule")} of WhatsApp; nothing was sent.`,
      file
        ? `Fix the file; \`reseller templates lint ${file}\` checks it again offline.`
        : undefined,
      check.problems.map((p) => ({
        field: fieldWithFlag(p.field, sources),
        message: p.message,
        rule: p.rule,
      })),
    );
  }
  showPreview(ctx, check.template);
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const draft = booleanOption(options, "draft");
  const response = await client.call("POST", templatesPath(workspaceId), TemplateResponse, {
    body: { ...check.template, ...(draft ? { draft: true } : {}) },
  });
  return submittedResult(
    ctx,
    options,
    workspaceId,
    { data: response.body.data, raw: response.raw.data },
    false,
  );
};

/**
 * An authentication template's code button, asked at a terminal when no --button gives one: a
 * copy-code button, the only kind flags can make (one-tap and zero-tap need their Android apps,
 * in a --file).
 */
async function askForCodeButton(
  ctx: Parameters<Handler>[0],
  options: Readonly<Record<string, unknown>>,
): Promise<Readonly<Record<string, unknown>>> {
  if (!ctx.canPrompt || listOption(options, "button").length > 0) return options;
  const text = await ctx.prompter.input({
    message: "Copy-code button text (one-tap and zero-tap buttons need --file)",
    default: "Copy code",
    validate: (value) =>
      value.trim() !== "" && [...value.trim()].length <= templateLimits.buttonTextMax
        ? true
        : `1 to ${templateLimits.buttonTextMax} characters.`,
  });
  return { ...options, button: [`OTP:COPY_CODE:${text.trim()}`] };
}

/**
 * At a terminal, an example for each variable of the body when no --example gives them: WhatsApp
 * reviews a template by its examples, so one without them is refused.
 */
async function askForExamples(
  ctx: Parameters<Handler>[0],
  options: Readonly<Record<string, unknown>>,
): Promise<Readonly<Record<string, unknown>>> {
  const body = stringOption(options, "body");
  if (!ctx.canPrompt || body === undefined || listOption(options, "example").length > 0) {
    return options;
  }
  const examples: string[] = [];
  for (const n of variableNumbers(body)) {
    const answer = await ctx.prompter.input({
      message: `Example for {{${n}}} (what a real message would say there, e.g. Anna)`,
      validate: (value) =>
        value.trim() === "" ? "WhatsApp needs an example for every variable." : true,
    });
    examples.push(answer.trim());
  }
  return examples.length > 0 ? { ...options, example: examples } : options;
}

/**
 * A question's check of a template's name or language: the checker's own rule, run on a
 * template that is fine but for that field.
 */
function answerFor(field: "name" | "language"): (value: string) => true | string {
  return (value) => {
    const check = checkTemplate({
      name: "example",
      category: "utility",
      language: "en_US",
      components: [{ type: "BODY", text: "Hello" }],
      [field]: value.trim(),
    });
    const problem = check.ok ? undefined : check.problems.find((p) => p.field === field);
    return problem === undefined ? true : `${field} ${problem.message}`;
  };
}
