import { openDatabase } from "../../../service/db/database.js";
import { systemClock } from "../../../service/domain/clock.js";
import { createReseller } from "../../../service/domain/resellers.js";
import type { Handler } from "../../command-spec.js";
import { existingDatabaseTarget } from "../../database-target.js";
import { requiredString } from "../../options.js";
import { recordView } from "../../output/view.js";
import { existingFileHint, explainedDatabaseError } from "./database-errors.js";

/** `reseller admin resellers create`: a new reseller account, straight in the database. */
export const run: Handler = async (ctx, { options }) => {
  const target = existingDatabaseTarget(options, ctx.env);
  if (target.warning) ctx.info(target.warning);
  const name = requiredString(options, "name").trim();
  const database = await openDatabase(target.target).catch((error: unknown) => {
    throw explainedDatabaseError(error, target.label, existingFileHint);
  });
  try {
    const created = await createReseller(database.db, systemClock, { name });
    const data = {
      reseller_id: created.resellerId,
      name,
      token_id: created.token.id,
      token: created.token.secret,
    };
    const view = recordView(data, [
      { header: "Reseller", key: "reseller_id", value: (d) => d.reseller_id },
      { header: "Name", key: "name", value: (d) => d.name },
      { header: "Token id", key: "token_id", value: (d) => d.token_id },
      { header: "Token", key: "token", value: (d) => d.token },
    ]);
    // --quiet prints ids only (the reseller's); the secret, shown only this once, goes to stderr.
    if (view.kind === "record") view.ids = [data.reseller_id];
    return {
      data,
      view,
      message: "Store the token now: it is shown only this once.",
      secrets: [`Token ${data.token_id} (shown only this once): ${data.token}`],
    };
  } finally {
    await database.close();
  }
};
