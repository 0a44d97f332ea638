import { type Template, TemplateResponse } from "../../../contract/templates.js";
import { exitCodes, usageError } from "../../cli-error.js";
import type { CommandResult } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { interruptibleWait } from "../../interruptible-wait.js";
import { booleanOption, intOption } from "../../options.js";
import { createPaint } from "../../output/paint.js";
import { renderPreview, templateLabel, templateView } from "./template-format.js";

type Options = Readonly<Record<string, unknown>>;

/** The path of a workspace's templates, or of one of them. */
export function templatesPath(workspaceId: string, templateId?: string): string {
  const base = `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/templates`;
  return templateId === undefined ? base : `${base}/${encodeURIComponent(templateId)}`;
}

/** Shows a template's preview on stderr when a person is watching it. */
export function showPreview(ctx: Context, template: unknown): void {
  if (ctx.io.stderr.isTTY !== true || ctx.output === "quiet") return;
  ctx.info(`${renderPreview(template, createPaint(ctx.color))}\n`);
}

/**
 * Seconds between polls while waiting for a review: every second for the first ten (the local
 * sandbox decides after its --review-delay, 5 s by default, and was seen 2 s late with longer
 * steps), then less often, as Meta takes minutes.
 */
const pollSeconds = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 5];

/**
 * With `--wait`: polls the template until the operator has decided, then answers its final
 * state with the exit code scripts branch on: 0 approved, 6 rejected (or paused), 1 still
 * pending after `--timeout`. Without `--wait`: the template as submitted.
 */
export async function submittedResult(
  ctx: Context,
  options: Options,
  workspaceId: string,
  submitted: { data: Template; raw: unknown },
  /** Show the preview with the result at a terminal (create has shown it already). */
  preview: boolean,
): Promise<CommandResult> {
  const label = templateLabel(submitted.data);
  const w = await ctx.workspaceArg();
  const withPreview = preview && ctx.output === "table";
  if (!booleanOption(options, "wait") || submitted.data.status !== "pending") {
    const note =
      submitted.data.status === "draft"
        ? `Stored ${label} as draft ${submitted.data.id}; submit it with \`reseller templates submit ${submitted.data.id}${w}\`.`
        : `Submitted ${label} for review as ${submitted.data.id}. The operator usually decides within 24 hours (the local sandbox after its --review-delay); check with \`reseller templates get ${submitted.data.id}${w}\` or pass --wait.`;
    return { data: submitted.raw, view: templateView(submitted.data, withPreview), message: note };
  }
  const timeoutSeconds = intOption(options, "timeout", { min: 1 }) ?? 600;
  const client = await ctx.client();
  ctx.info(`Submitted ${label} as ${submitted.data.id}; waiting for the operator's review…`);
  let waited = 0;
  let current = submitted;
  const wait = interruptibleWait(ctx.sleep);
  try {
    for (let i = 0; current.data.status === "pending" && waited < timeoutSeconds; i++) {
      const step = Math.min(pollSeconds[i] ?? 5, timeoutSeconds - waited);
      await wait.sleep(step * 1000);
      waited += step;
      const response = await wait.until(
        client.get(templatesPath(workspaceId, submitted.data.id), TemplateResponse),
      );
      if (response === undefined) break;
      current = { data: response.body.data, raw: response.raw.data };
    }
  } finally {
    wait.dispose();
  }
  const view = templateView(current.data, withPreview);
  if (wait.interrupted) {
    return {
      data: current.raw,
      view,
      message: `Stopped waiting: ${label} is ${current.data.status}; the review goes on. Check with \`reseller templates get ${current.data.id} -w ${workspaceId}\`.`,
      exitCode: exitCodes.interrupted.code,
      errorCode: "interrupted",
    };
  }
  switch (current.data.status) {
    case "approved":
      return { data: current.raw, view, message: `Approved: ${label} can be used in campaigns.` };
    case "pending":
      return {
        data: current.raw,
        view,
        message: `Still pending after ${timeoutSeconds} s; check later with \`reseller templates get ${current.data.id}${w}\`.`,
        // The submission stands; the state waited for is not reached yet.
        exitCode: exitCodes.conflict.code,
        errorCode: "template_pending",
      };
    case "rejected":
      return {
        data: current.raw,
        view,
        message: `Rejected: ${label}: ${current.data.rejection_reason ?? "no reason given"}${current.data.rejection_detail ? ` (${current.data.rejection_detail})` : ""}.`,
        exitCode: exitCodes.refused.code,
        errorCode: "template_rejected",
        details: [
          {
            field: "rejection_reason",
            message: current.data.rejection_reason ?? "no reason given",
          },
          ...(current.data.rejection_detail
            ? [{ field: "rejection_detail", message: current.data.rejection_detail }]
            : []),
          { field: "id", message: current.data.id },
        ],
      };
    default:
      return {
        data: current.raw,
        view,
        message: `${label} is ${current.data.status}.`,
        exitCode: exitCodes.refused.code,
        // Paused or disabled by the operator: the service's own code for a template not usable.
        errorCode: "template_not_approved",
        details: [{ field: "status", message: current.data.status }],
      };
  }
}

/**
 * Refuses, before any request, --wait and --timeout where they would be dropped without a word:
 * --timeout without --wait, and --wait on a draft, which no review decides.
 */
export function checkWaitFlags(options: Readonly<Record<string, unknown>>, draft = false): void {
  intOption(options, "timeout", { min: 1 });
  const wait = booleanOption(options, "wait");
  if (options.timeout !== undefined && !wait) {
    throw usageError("--timeout is how long --wait waits; give it with --wait.");
  }
  if (draft && wait) {
    throw usageError(
      "--wait waits for a review, and a --draft is not submitted for one.",
      "Drop --wait, or submit the draft later with `reseller templates submit <id> --wait`.",
    );
  }
}
