import { TagListResponse } from "../../../contract/contacts.js";
import type { Handler } from "../../command-spec.js";
import { tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { tagColumns } from "./contact-format.js";

/** `reseller tags list`: the workspace's tags with their contact counts. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    workspacePath(workspaceId, "/tags"),
    TagListResponse,
    options,
    {},
    "tags",
  );
  return {
    data: list.data,
    view: tableView(list.rows, tagColumns, {
      empty: "No tags yet: give contacts tags with --tag or a tags column.",
      ids: (t) => t.name,
    }),
    message: list.message,
  };
};
