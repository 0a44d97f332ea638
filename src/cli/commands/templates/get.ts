import { TemplateResponse } from "../../../contract/templates.js";
import type { Handler } from "../../command-spec.js";
import { templatesPath } from "./template-actions.js";
import { templateView } from "./template-format.js";

/** `reseller templates get <id>`: one template, its review outcome, and a preview at a terminal. */
export const run: Handler = async (ctx, { args }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.get(templatesPath(workspaceId, args[0] ?? ""), TemplateResponse);
  return {
    data: response.raw.data,
    view: templateView(response.body.data, ctx.output === "table"),
  };
};
