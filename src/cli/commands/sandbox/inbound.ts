import { InboundResponse } from "../../../contract/campaigns.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { e164Flag, stringOption } from "../../options.js";
import { recordView } from "../../output/view.js";

/**
 * `reseller sandbox inbound --from +E164 --text TEXT`: simulates a contact's reply reaching the
 * sandbox operator. STOP or UNSUBSCRIBE opts the contact out, START opts it back in.
 */
export const run: Handler = async (ctx, { options }) => {
  const from = stringOption(options, "from")?.trim() ?? "";
  const text = stringOption(options, "text");
  const missing = [from === "" ? "--from" : null, text === undefined ? "--text" : null].filter(
    (flag): flag is string => flag !== null,
  );
  if (missing.length > 0 || text === undefined) {
    throw usageError(
      `Missing ${missing.join(" and ")}.`,
      "For example: reseller sandbox inbound --from +4915112345671 --text STOP",
    );
  }
  const phone = e164Flag(from, "--from");
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const response = await client.call("POST", "/api/v1/sandbox/inbound", InboundResponse, {
    body: { workspace_id: workspaceId, from: phone, text },
  });
  const result = response.body.data;
  const message =
    result.contact_id === null
      ? `No contact of workspace ${workspaceId} has the number ${phone}; nothing changed.`
      : result.action === "none"
        ? `'${text}' is not a consent keyword (STOP, UNSUBSCRIBE, START, alone); contact ${result.contact_id} stays ${result.opt_in_status}.`
        : `Contact ${result.contact_id} is now ${result.opt_in_status}.`;
  return {
    data: response.raw.data,
    view: recordView(
      result,
      [
        { header: "Contact", key: "contact_id", value: (r) => r.contact_id },
        {
          header: "Action",
          key: "action",
          value: (r) => r.action,
          display: (r, paint) => (r.action === "none" ? paint.dim("none") : paint.status(r.action)),
        },
        {
          header: "Opt-in status",
          key: "opt_in_status",
          value: (r) => r.opt_in_status,
          display: (r, paint) => (r.opt_in_status ? paint.status(r.opt_in_status) : "—"),
        },
      ],
      // --quiet: the contact the reply was from, none when no contact has the number.
      result.contact_id === null ? [] : [result.contact_id],
    ),
    message,
  };
};
