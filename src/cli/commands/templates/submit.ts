import { TemplateResponse } from "../../../contract/templates.js";
import type { Handler } from "../../command-spec.js";
import { checkWaitFlags, submittedResult, templatesPath } from "./template-actions.js";

/** `reseller templates submit <id>`: sends a draft to review; --wait waits for the decision. */
export const run: Handler = async (ctx, { args, options }) => {
  checkWaitFlags(options);
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.call(
    "POST",
    `${templatesPath(workspaceId, args[0] ?? "")}/submit`,
    TemplateResponse,
  );
  return submittedResult(
    ctx,
    options,
    workspaceId,
    { data: response.body.data, raw: response.raw.data },
    true,
  );
};
