import { TemplateListResponse } from "../../../contract/templates.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { templatesPath } from "./template-actions.js";
import { templateColumns } from "./template-format.js";

/** `reseller templates list`: the workspace's templates, newest first, one page or --all. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    templatesPath(workspaceId),
    TemplateListResponse,
    options,
    {
      status: stringOption(options, "status"),
      category: stringOption(options, "category"),
      name: stringOption(options, "name"),
      language: stringOption(options, "language"),
    },
    "templates",
  );
  return {
    data: list.data,
    view: tableView(list.rows, templateColumns, {
      empty: "No templates match. Create one with `reseller templates create`.",
    }),
    message: list.message,
  };
};
