import { openDatabase } from "../../../service/db/database.js";
import type { Handler } from "../../command-spec.js";
import { existingDatabaseTarget } from "../../database-target.js";
import { counted } from "../../output/counts.js";
import { tableView, textView } from "../../output/view.js";
import { existingFileHint, explainedDatabaseError } from "./database-errors.js";

/** `reseller admin migrate`: applies the pending migrations and says which. */
export const run: Handler = async (ctx, { options }) => {
  const target = existingDatabaseTarget(options, ctx.env);
  if (target.warning) ctx.info(target.warning);
  // Opening migrates (under Kysely's advisory lock on PostgreSQL) and says what it applied.
  const database = await openDatabase(target.target).catch((error: unknown) => {
    throw explainedDatabaseError(error, target.label, existingFileHint);
  });
  try {
    const { applied } = database;
    const data = { applied, engine: target.engine, database: target.label };
    if (applied.length === 0) {
      return {
        data,
        view: textView(() => `${target.label} is already current: no migration to apply.\n`),
      };
    }
    return {
      data,
      view: tableView(applied, [
        { header: "Applied migration", key: "name", value: (name) => name },
      ]),
      message: `${target.label} is now current (${counted(applied.length, "migration")} applied).`,
    };
  } finally {
    await database.close();
  }
};
