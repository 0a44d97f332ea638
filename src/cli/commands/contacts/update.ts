import { ContactResponse } from "../../../contract/contacts.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, listOption } from "../../options.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { contactFields } from "./contact-body.js";
import { contactView } from "./contact-format.js";

/** `reseller contacts update <id> …`: changes only the given fields. */
export const run: Handler = async (ctx, { args, options }) => {
  const body = contactFields(options);
  if (booleanOption(options, "clearTags")) {
    if (listOption(options, "tag").length > 0)
      throw usageError("Give --tag or --clear-tags, not both.");
    body.tags = [];
  }
  if (Object.keys(body).length === 0) {
    throw usageError(
      "Nothing to change.",
      "Pass at least one of --first-name, --last-name, --email, --tag, --clear-tags, --field, --remove-field, --opt-in, --opt-in-source, --opted-in-at.",
    );
  }
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.call(
    "PATCH",
    workspacePath(workspaceId, `/contacts/${encodeURIComponent(args[0] ?? "")}`),
    ContactResponse,
    { body },
  );
  const contact = response.body.data;
  return {
    data: response.raw.data,
    view: contactView(contact),
    message: `Updated contact ${contact.id} (${contact.phone}).`,
  };
};
