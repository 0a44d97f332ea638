import { ContactListResponse } from "../../../contract/contacts.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { fetchList } from "../../paged-list.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { contactTable } from "./contact-format.js";

/** `reseller contacts list`: one page (or --all) of contacts, with search and filters. */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const list = await fetchList(
    client,
    workspacePath(workspaceId, "/contacts"),
    ContactListResponse,
    options,
    {
      search: stringOption(options, "search"),
      tag: stringOption(options, "tag"),
      opt_in_status: stringOption(options, "optInStatus"),
    },
    "contacts",
  );
  return { data: list.data, view: contactTable(list.rows), message: list.message };
};
