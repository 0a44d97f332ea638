import type { CreateWorkspaceBody } from "../../../contract/workspaces.js";
import { WorkspaceResponse } from "../../../contract/workspaces.js";
import type { Handler } from "../../command-spec.js";
import { requireFlags, stringOption } from "../../options.js";
import { when } from "../../output/time.js";
import { recordView } from "../../output/view.js";
import { flagOrAsk } from "../../prompts.js";
import { planIdOf } from "../plans/plan-lookup.js";
import { workspaceFields } from "./workspace-format.js";
import { checkEmailFlag, checkNameFlag, emailProblem, nameProblem } from "./workspace-input.js";

/** `reseller workspaces create`: a workspace for a client, invitation included unless --no-invite. */
export const run: Handler = async (ctx, { options }) => {
  // Without a terminal every missing flag is named at once, not one per attempt.
  if (!ctx.canPrompt) requireFlags(options, ["name", "email"]);
  const missing = (flag: string) => ({
    flag,
    hint: "Pass --name and --email (or run at a terminal to be asked).",
  });
  const name = await flagOrAsk(
    ctx,
    stringOption(options, "name"),
    { message: "Workspace name", validate: (v) => nameProblem(v) ?? true },
    missing("--name"),
  );
  const email = await flagOrAsk(
    ctx,
    stringOption(options, "email"),
    { message: "Contact email", validate: (v) => emailProblem(v) ?? true },
    missing("--email"),
  );
  checkNameFlag(name);
  checkEmailFlag(email);
  const plan = stringOption(options, "plan");
  const body: CreateWorkspaceBody = {
    name,
    contact_email: email,
    send_invitation: options.invite !== false,
    ...(plan === undefined ? {} : { plan_id: await planIdOf(ctx, plan, "invalid_flag") }),
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
