import type { CreateWorkspaceBody } from "../../../contract/workspaces.js";
import { WorkspaceResponse } from "../../../contract/workspaces.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { planIdOf } from "../plans/plan-lookup.js";
import { when, workspaceFields } from "./workspace-format.js";

type Options = Readonly<Record<string, unknown>>;

const looksLikeEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim());

/** A value from its flag, else asked for at a terminal, else a usage error naming the flag. */
async function flagOrAsk(
  ctx: Context,
  options: Options,
  key: string,
  flag: string,
  question: string,
  validate: (value: string) => true | string,
): Promise<string> {
  const given = stringOption(options, key);
  if (given !== undefined && given.trim() !== "") return given.trim();
  if (!ctx.canPrompt) {
    throw usageError(
      `Missing ${flag}.`,
      "Pass --name and --email (or run at a terminal to be asked).",
    );
  }
  return (await ctx.prompter.input({ message: question, validate })).trim();
}

/** `reseller workspaces create`: a workspace for a client, invitation included unless --no-invite. */
export const run: Handler = async (ctx, { options }) => {
  const name = await flagOrAsk(ctx, options, "name", "--name", "Workspace name", (v) =>
    v.trim() === "" ? "A name is required." : true,
  );
  const email = await flagOrAsk(ctx, options, "email", "--email", "Contact email", (v) =>
    looksLikeEmail(v) ? true : "Enter an email address such as owner@example.com.",
  );
  const plan = stringOption(options, "plan");
  const body: CreateWorkspaceBody = {
    name,
    contact_email: email,
    send_invitation: options.invite !== false,
    ...(plan === undefined ? {} : { plan_id: await planIdOf(ctx, plan) }),
  };
  const client = await ctx.client();
  const response = await client.call("POST", "/api/v1/workspaces", WorkspaceResponse, { body });
  const ws = response.body.data;
  const notes = [
    `Created workspace ${ws.id} (${ws.name}), status ${ws.status}${ws.trial_ends_at ? ` until ${when(ws.trial_ends_at)}` : ""}.`,
    ws.invitation.sent
      ? `Invitation sent to ${ws.contact_email}.`
      : body.send_invitation
        ? `The invitation to ${ws.contact_email} could not be sent yet; the service keeps it in its outbox.`
        : "No invitation sent (--no-invite).",
    `Next: \`reseller workspaces use ${ws.id}\` to work inside it.`,
  ];
  return {
    data: response.raw.data,
    view: recordView(ws, workspaceFields),
    message: notes.join("\n"),
  };
};
