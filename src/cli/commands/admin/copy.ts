import { existsSync } from "node:fs";
import { redactedUrl } from "../../../contract/redacted-url.js";
import { CopyRefusedError, copyDatabase } from "../../../service/db/copy-database.js";
import { isPostgresUrl } from "../../../service/db/engine.js";
import { CliError, exitCodes, usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { passwordInArgsWarning, requirePostgresUrl } from "../../database-target.js";
import { requiredString, stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { tableView } from "../../output/view.js";
import { explainedDatabaseError } from "./database-errors.js";

/** What to do about a --from that is no database of the service. */
const sourceHint = "Point --from at the file `reseller serve --db` uses.";

/** A progress line per this many rows of a large table. */
const progressEvery = 100_000;

/** `reseller admin copy`: a SQLite deployment into an empty PostgreSQL database. */
export const run: Handler = async (ctx, { options }) => {
  const from = requiredString(options, "from");
  if (isPostgresUrl(from)) {
    throw usageError("--from takes the SQLite database file; the target goes in --to.");
  }
  if (!existsSync(from)) {
    throw usageError(`No database at ${redactedUrl(from)}.`, sourceHint);
  }
  // A flag only, never DATABASE_URL: a copy must name its target, not find it in the environment.
  // --database is the target too, as every admin command takes it.
  const named = stringOption(options, "to");
  const database = stringOption(options, "database");
  if (named !== undefined && database !== undefined && named !== database) {
    throw usageError("Give the target once: --to or --database, not two different URLs.");
  }
  const to = named ?? database;
  const flag = named !== undefined ? "--to" : "--database";
  if (to === undefined) throw usageError("Missing --to <postgres url>.");
  requirePostgresUrl(
    to,
    flag,
    "The copy goes from the SQLite file in --from into an empty PostgreSQL database.",
  );
  // A flag only: a copy names its target, so PGPASSWORD is where a password stays off the list.
  const warning = passwordInArgsWarning(to, flag, "put the password in PGPASSWORD instead");
  if (warning) ctx.info(warning);
  const progress = ctx.output !== "quiet";
  let report: Awaited<ReturnType<typeof copyDatabase>>;
  try {
    report = await copyDatabase({
      from,
      to,
      onProgress: (table, written, total) => {
        if (!progress) return;
        if (written === 0) ctx.info(`Copying ${table} (${counted(total, "row")})…`);
        else if (written < total && written % progressEvery < 1_000) {
          ctx.info(`  ${table}: ${written} of ${total}`);
        }
      },
    });
  } catch (error) {
    if (error instanceof CopyRefusedError)
      throw new CliError("conflict", error.message, error.hint, [], error.code);
    // The source is the SQLite file: its errors are said of it, not of the target.
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && code.startsWith("SQLITE_"))
      throw explainedDatabaseError(error, from, sourceHint);
    throw explainedDatabaseError(error, redactedUrl(to));
  }
  const data = {
    from: report.from,
    to: report.to,
    copied: report.copied,
    migrations_applied: report.migrationsApplied,
    tables: report.tables.map((t) => ({ ...t, matches: t.source === t.target })),
    sequences: report.sequences,
  };
  const rows = report.tables.reduce((sum, t) => sum + t.source, 0);
  return {
    data,
    view: tableView(data.tables, [
      { header: "Table", key: "table", value: (t) => t.table },
      { header: "SQLite", key: "source", value: (t) => t.source },
      { header: "PostgreSQL", key: "target", value: (t) => t.target },
      {
        header: "",
        key: "matches",
        value: (t) => (t.matches ? "ok" : "DIFFERS"),
        display: (t, paint) => (t.matches ? paint.good("ok") : paint.bad("DIFFERS")),
      },
    ]),
    message: report.copied
      ? `Copied ${rows} rows in ${report.tables.length} tables to ${report.to}; every count matches. Set DATABASE_URL to it and start \`reseller serve\`.`
      : `Row counts differ: the copy was rolled back and ${report.to} is left empty.`,
    ...(report.copied
      ? {}
      : { exitCode: exitCodes.unexpected.code, errorCode: "copy_counts_differ" }),
  };
};
