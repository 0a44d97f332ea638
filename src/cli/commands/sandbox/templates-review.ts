import { TemplateResponse } from "../../../contract/templates.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { templatesPath } from "../templates/template-actions.js";
import { templateLabel, templateView } from "../templates/template-format.js";

/** `reseller sandbox templates review <id> --approve | --reject REASON | --pause`. */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const reason = stringOption(options, "reject");
  const detail = stringOption(options, "detail");
  const chosen = [
    booleanOption(options, "approve") ? "approve" : null,
    reason !== undefined ? "reject" : null,
    booleanOption(options, "pause") ? "pause" : null,
  ].filter((d): d is "approve" | "reject" | "pause" => d !== null);
  const decision = chosen[0];
  if (chosen.length !== 1 || decision === undefined) {
    throw usageError("Give exactly one of --approve, --reject REASON or --pause.");
  }
  if (detail !== undefined && decision !== "reject") {
    throw usageError("--detail goes with --reject only.");
  }
  const client = await ctx.client();
  // The operator's endpoint finds a template by id alone; a workspace named with -w is checked,
  // so a script that passes -w to every command never decides another workspace's template.
  const workspace = (await ctx.settings()).workspace;
  if (workspace.source === "flag" && workspace.value) {
    await client.get(templatesPath(workspace.value, id), TemplateResponse);
  }
  const response = await client.call(
    "POST",
    `/api/v1/sandbox/templates/${encodeURIComponent(id)}/review`,
    TemplateResponse,
    {
      body: {
        decision,
        ...(reason !== undefined ? { reason } : {}),
        ...(detail !== undefined ? { detail } : {}),
      },
    },
  );
  const template = response.body.data;
  return {
    data: response.raw.data,
    view: templateView(template, false),
    message: `The sandbox operator ${decision === "approve" ? "approved" : decision === "reject" ? `rejected (${reason})` : "paused"} ${templateLabel(template)}.`,
  };
};
