import type { Handler } from "../../command-spec.js";
import { moveCampaign } from "./control.js";

/** `reseller campaigns resume <id>`: running again, or scheduled while its time is ahead. */
export const run: Handler = async (ctx, { args }) =>
  moveCampaign(ctx, args[0] ?? "", "resume", (label, status) =>
    status === "scheduled"
      ? `Resumed campaign ${label}: scheduled again, it starts at its time.`
      : `Resumed campaign ${label}: sending goes on where it stopped.`,
  );
