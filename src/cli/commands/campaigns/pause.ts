import type { Handler } from "../../command-spec.js";
import { moveCampaign } from "./control.js";

/** `reseller campaigns pause <id>`: the batch in flight finishes, nothing more is sent. */
export const run: Handler = async (ctx, { args }) =>
  moveCampaign(
    ctx,
    args[0] ?? "",
    "pause",
    (label) =>
      `Paused campaign ${label}: nothing more is sent until \`reseller campaigns resume\`.`,
  );
