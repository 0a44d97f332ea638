import { ContactResponse } from "../../../contract/contacts.js";
import type { Handler } from "../../command-spec.js";
import { e164Answer, e164Flag, requiredString } from "../../options.js";
import { askForMissing } from "../../prompts.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { contactFields } from "./contact-body.js";
import { contactView } from "./contact-format.js";

/** `reseller contacts upsert --phone P …`: creates the contact with that phone or updates it. */
export const run: Handler = async (ctx, input) => {
  // Known to be missing before any question: nothing is asked in vain.
  const workspaceId = await ctx.workspaceId();
  const options = await askForMissing(ctx, input.options, [
    {
      key: "phone",
      message: "Phone (E.164, e.g. +4915112345678)",
      validate: e164Answer,
    },
  ]);
  const phone = e164Flag(requiredString(options, "phone"), "--phone");
  const body = { phone, ...contactFields(options) };
  const client = await ctx.client();
  const response = await client.call(
    "POST",
    workspacePath(workspaceId, "/contacts"),
    ContactResponse,
    {
      body,
    },
  );
  const contact = response.body.data;
  const notices = response.body.meta?.notices ?? [];
  // The service's notice names the API's PATCH; a CLI user is shown the command that does it.
  const resubscribe = notices.some((n) => n.field === "opt_in_status")
    ? [
        `To re-subscribe them with consent given again: reseller contacts update ${contact.id} --opt-in opted_in --opt-in-source "<where the consent came from>"${await ctx.workspaceArg()}`,
      ]
    : [];
  return {
    data: response.raw.data,
    view: contactView(contact),
    message: `${response.status === 201 ? "Created" : "Updated"} contact ${contact.id} (${contact.phone}).`,
    // What the service left as it was, and why (an opt-out it kept): the write still succeeded.
    warnings: [...notices.map((n) => `${n.field}: ${n.message}`), ...resubscribe],
  };
};
