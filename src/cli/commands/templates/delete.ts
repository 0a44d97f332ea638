import { DeletedTemplateResponse, TemplateResponse } from "../../../contract/templates.js";
import { CliError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { confirmOrYes } from "../../prompts.js";
import { templatesPath } from "./template-actions.js";
import { templateLabel } from "./template-format.js";

/**
 * `reseller templates delete <id>`: at a terminal it names the template and asks first (one that
 * cannot be deleted is refused before the question, exit 5); without one it needs --yes. Only
 * drafts and rejected templates can be deleted (the service answers 409 for the others).
 */
export const run: Handler = async (ctx, { args, options }) => {
  const id = args[0] ?? "";
  const yes = booleanOption(options, "yes");
  const workspaceId = await ctx.workspaceId();
  let label = id;
  if (!yes && ctx.canPrompt) {
    // Name the template in the question, so a mistyped id cannot delete the wrong one.
    const client = await ctx.client();
    const current = (await client.get(templatesPath(workspaceId, id), TemplateResponse)).body.data;
    label = `${current.id} (${templateLabel(current)}, ${current.status})`;
    if (current.status !== "draft" && current.status !== "rejected") {
      // Refused before the question, as the service would refuse it after: nothing to confirm.
      throw new CliError(
        "conflict",
        `Template ${label} cannot be deleted: only a draft or rejected template can be deleted through the API.`,
        "Manage approved, pending or paused templates in the workspace dashboard.",
        [],
        "template_not_deletable",
      );
    }
  }
  const confirmed = await confirmOrYes(ctx, yes, `Delete template ${label}?`);
  if (!confirmed) return { message: `Cancelled: template ${label} was not deleted.` };
  const client = await ctx.client();
  const response = await client.call(
    "DELETE",
    templatesPath(workspaceId, id),
    DeletedTemplateResponse,
  );
  const deleted = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(deleted, [
      { header: "Id", key: "id", value: (d) => d.id },
      { header: "Name", key: "name", value: (d) => d.name },
      { header: "Language", key: "language", value: (d) => d.language },
      { header: "Deleted", key: "deleted", value: (d) => d.deleted },
    ]),
    message: `Deleted template ${templateLabel(deleted)}.`,
  };
};
