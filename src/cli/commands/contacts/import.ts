import { readFile } from "node:fs/promises";
import { stringify } from "csv-stringify/sync";
import { ApiError } from "../../../client/api-error.js";
import {
  type ContactImport,
  ContactImportResponse,
  importLimits,
  tooLargeMessage,
} from "../../../contract/contact-imports.js";
import { CliError, exitCodes, usageError } from "../../cli-error.js";
import type { CommandResult, Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { cannotRead } from "../../input-file.js";
import { interruptibleWait } from "../../interruptible-wait.js";
import { booleanOption, intOption, stringOption } from "../../options.js";
import { count, counted } from "../../output/counts.js";
import { checkOutputFile, openOutputFile } from "../../output/output-file.js";
import { recordView, stackView, tableView } from "../../output/view.js";
import { type InputFile, spooledInput } from "../../spooled-input.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import {
  delimiterCell,
  errorColumns,
  errorsShown,
  importSummary,
  importView,
} from "./contact-format.js";
import { dryRun } from "./dry-run.js";
import { errorCsvHeader, errorCsvRows, writeImportErrors } from "./import-errors.js";
import {
  answeredLine,
  columnsLine,
  columnsNamedByFlags,
  lookAlikesLine,
  resolveCsvOptions,
} from "./import-mapping.js";
import { uploadImport } from "./import-upload.js";

/** How often the progress of a running import is read. */
const pollMs = 500;

async function readCsv(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw cannotRead(`'${file}'`, error);
  }
}

/**
 * The dry run's word on phones repeated in the file: one contact each, the later row winning
 * under update; under skip the first row is the contact and the later ones are skipped.
 */
function repeatsSaid(repeats: number, onDuplicate: string | undefined): string {
  if (repeats === 0) return "";
  const which =
    onDuplicate === "skip" ? "the first row is kept, the later skipped" : "the later row wins";
  return ` (${counted(repeats, "row")} repeat${repeats === 1 ? "s" : ""} an earlier row's phone: one contact each, ${which})`;
}

/**
 * `--dry-run`: the file checked here, nothing sent; the exit code the import would have: 0 with
 * refused rows (they are counted, as the service does), 6 for them only with --strict.
 */
async function checkLocally(
  ctx: Context,
  file: string,
  options: Readonly<Record<string, unknown>>,
): Promise<CommandResult> {
  const read = await resolveCsvOptions(ctx, file, options);
  const bytes = await readCsv(file);
  const { report, allErrors } = dryRun(
    bytes,
    stringOption(options, "defaultCountry"),
    ctx.now(),
    read,
  );
  const errorsFile = stringOption(options, "errors");
  if (errorsFile !== undefined) {
    const handle = await openOutputFile(errorsFile, "--errors");
    try {
      await handle.write(stringify([errorCsvHeader, ...errorCsvRows(allErrors)]));
    } finally {
      await handle.close();
    }
  }
  const summary = recordView(report, [
    { header: "Rows", key: "rows", value: (r) => r.rows },
    { header: "Valid", key: "valid_rows", value: (r) => r.valid_rows },
    { header: "Errors", key: "error_count", value: (r) => r.error_count },
    { header: "Repeated phones", key: "repeated_phones", value: (r) => r.repeated_phones },
    {
      header: "Ignored columns",
      key: "ignored_columns",
      value: (r) => r.ignored_columns.join(","),
    },
    { header: "Separator", key: "delimiter", value: (r) => delimiterCell(r.delimiter) },
    { header: "Encoding", key: "encoding", value: (r) => r.encoding },
  ]);
  const shown = report.errors.slice(0, errorsShown);
  const view =
    shown.length === 0
      ? summary
      : stackView(
          { view: summary },
          {
            key: "errors",
            title:
              report.error_count > shown.length
                ? `First ${shown.length} of ${report.error_count} row errors`
                : "Row errors",
            view: tableView(shown, errorColumns),
          },
        );
  const verdict =
    report.error_count === 0
      ? `Dry run: ${report.rows === 1 ? "the 1 row" : `all ${counted(report.rows, "row")}`} can be imported${repeatsSaid(report.repeated_phones, stringOption(options, "onDuplicate"))}; nothing was sent.`
      : `Dry run: ${count(report.error_count)} of ${counted(report.rows, "row")} would be refused${repeatsSaid(report.repeated_phones, stringOption(options, "onDuplicate"))}${errorsFile ? ` (all in ${errorsFile})` : ""}; nothing was sent.`;
  const strict = booleanOption(options, "strict") && report.error_count > 0;
  return {
    data: report,
    view,
    message: `${verdict}\n${columnsLine(report.mapping, report.delimiter, report.encoding)}${answeredLine(read, options)}${unasked(ctx, options) ? lookAlikesLine(report.mapping) : ""}${strict ? "\n--strict: exit code 6 because rows would be refused." : ""}`,
    exitCode: strict ? 6 : 0,
    errorCode: "rows_refused",
    details: report.errors.slice(0, errorsShown),
  };
}

/** "42s", "3m 05s": the time `rows` take at `rate` rows a second; "…" before any row is done. */
export function timeLeft(rows: number, rate: number): string {
  if (!(rate > 0)) return "…";
  const seconds = Math.max(0, Math.ceil(rows / rate));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * Waits for the import to end, with a progress bar at a terminal. Ctrl-C stops the waiting, not
 * the import (`stopped`), and the bar's stop gives the terminal its cursor and wrapping back.
 */
async function follow(
  ctx: Context,
  path: string,
  first: ContactImport,
  firstRaw: unknown,
  timeoutSeconds: number | undefined,
): Promise<{ record: ContactImport; raw: unknown; stopped: boolean; timedOut: boolean }> {
  const client = await ctx.client();
  // A dumb terminal (Emacs' shell) cannot redraw a line in place.
  const showBar =
    ctx.io.stderr.isTTY === true &&
    ctx.env.TERM !== "dumb" &&
    ctx.output !== "json" &&
    ctx.output !== "quiet";
  const { SingleBar } = showBar ? await import("cli-progress") : { SingleBar: null };
  const bar = SingleBar
    ? new SingleBar({
        stream: ctx.io.stderr as NodeJS.WritableStream,
        format: "Importing {bar} {value}/{total} rows · {rate} rows/s · {left} left",
        hideCursor: true,
        barsize: 30,
      })
    : null;
  const started = ctx.now().getTime();
  let current = first;
  let raw = firstRaw;
  let waitedMs = 0;
  const unfinished = () => current.status === "queued" || current.status === "processing";
  const wait = interruptibleWait(ctx.sleep);
  bar?.start(Math.max(1, current.total_rows), current.processed_rows, { rate: 0, left: "…" });
  try {
    while (
      unfinished() &&
      !wait.interrupted &&
      // The longer of the time slept and the time passed: requests and their retries count.
      (timeoutSeconds === undefined ||
        Math.max(waitedMs, ctx.now().getTime() - started) < timeoutSeconds * 1000)
    ) {
      await wait.sleep(pollMs);
      waitedMs += pollMs;
      const response = await wait.until(client.get(path, ContactImportResponse));
      if (response === undefined) break;
      current = response.body.data;
      raw = response.raw.data;
      const seconds = Math.max(0.001, (ctx.now().getTime() - started) / 1000);
      bar?.setTotal(Math.max(1, current.total_rows));
      const rate = current.processed_rows / seconds;
      bar?.update(current.processed_rows, {
        rate: Math.round(rate),
        left: timeLeft(current.total_rows - current.processed_rows, rate),
      });
    }
  } finally {
    wait.dispose();
    bar?.stop();
  }
  return {
    record: current,
    raw,
    stopped: wait.interrupted,
    timedOut: !wait.interrupted && unfinished(),
  };
}

/**
 * `reseller contacts import <file>` (`-` for standard input): upload, then follow the import to
 * its summary.
 */
export const run: Handler = async (ctx, { args, options }) => {
  const dry = booleanOption(options, "dryRun");
  const errorsFile = stringOption(options, "errors");
  if (!dry && errorsFile !== undefined && options.wait === false) {
    throw usageError(
      "--errors writes the row errors when the import ends, which --no-wait does not wait for.",
      "Write them later with `reseller contacts imports get <import_id> --errors FILE`.",
    );
  }
  // A dry run exits as the import would, so it refuses the pair too.
  if (booleanOption(options, "strict") && options.wait === false) {
    throw usageError(
      "--strict fails the command when the import ends with refused rows, which --no-wait does not wait for.",
      "Check the import later with `reseller contacts imports get <import_id>` (its error_count).",
    );
  }
  // Checked before the upload, written only at the end: a file of an earlier run is kept
  // when this one fails.
  if (!dry && errorsFile !== undefined) await checkOutputFile(errorsFile, "--errors");
  const input = await spooledInput(args[0] ?? "", ctx.io.stdin, {
    bytes: importLimits.csvBytes,
    tooLarge: () =>
      // Found while the file is copied, before any request: exit 2, with the 413's code.
      new CliError(
        "usage",
        tooLargeMessage(args[0] === "-" ? "Standard input" : `'${args[0]}'`),
        undefined,
        [],
        "payload_too_large",
      ),
  });
  try {
    return dry
      ? await checkLocally(ctx, input.path, options)
      : await importFile(ctx, input, options);
  } finally {
    await input.remove();
  }
};

/** Whether the columns were left to their names: no flag named them and nothing was asked. */
function unasked(ctx: Context, options: Readonly<Record<string, unknown>>): boolean {
  return !ctx.canPrompt && !columnsNamedByFlags(options);
}

async function importFile(
  ctx: Context,
  input: InputFile,
  options: Readonly<Record<string, unknown>>,
): Promise<CommandResult> {
  const errorsFile = stringOption(options, "errors");
  const timeoutSeconds = intOption(options, "timeout", { min: 1 });
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const csv = await resolveCsvOptions(ctx, input.path, options);
  const chosen = answeredLine(csv, options);
  // Streamed: the file is never read whole (import-upload.ts).
  const response = await uploadImport(client, workspaceId, input.path, {
    duplicateHandling: stringOption(options, "onDuplicate"),
    defaultCountry: stringOption(options, "defaultCountry"),
    csv,
  });
  // Uploaded: the copy of a stream is no longer needed, and Ctrl-C is the waiting's own now.
  await input.remove();
  const queued = response.body.data;
  const path = workspacePath(workspaceId, `/contacts/imports/${encodeURIComponent(queued.id)}`);
  if (ctx.output !== "json" && ctx.output !== "quiet") {
    ctx.info(
      `Import ${queued.id} queued: ${counted(queued.total_rows, "row")} from ${input.label}.`,
    );
  }
  if (options.wait === false) {
    return {
      data: response.raw.data,
      view: importView(queued),
      message: `Follow it with \`reseller contacts imports get ${queued.id}${await ctx.workspaceArg()}\`.`,
    };
  }
  let followed: Awaited<ReturnType<typeof follow>>;
  try {
    followed = await follow(ctx, path, queued, response.raw.data, timeoutSeconds);
  } catch (error) {
    // The service lost while following (a restart longer than the retries): the import is
    // stored and resumes with it, so the file must not be sent again.
    const lost =
      error instanceof ApiError &&
      (error.kind === "network" ||
        error.kind === "timeout" ||
        [502, 503, 504].includes(error.status));
    if (lost) {
      throw error.withHint(
        `Import ${queued.id} is stored and goes on in the service once it is back: follow it with \`reseller contacts imports get ${queued.id} -w ${workspaceId}\`; do not send the file again.`,
      );
    }
    // A token that may import but not read: still a permission error (exit 3), but the import
    // is queued and runs, and a script must not send the file again.
    if (!(error instanceof ApiError && error.errorCode === "insufficient_scope")) throw error;
    throw new ApiError({
      kind: error.kind,
      status: error.status,
      errorCode: error.errorCode,
      details: error.details,
      requestId: error.requestId,
      message: `Import ${queued.id} is queued and will run, but this token cannot follow it: ${error.message} Do not send the file again; follow it with \`reseller contacts imports get ${queued.id}\` and a token that has the scope.`,
    });
  }
  const { record: done, raw } = followed;
  if (followed.stopped) {
    return {
      data: raw,
      view: importView(done),
      message: `Stopped following import ${done.id}; it goes on in the service. Follow it with \`reseller contacts imports get ${done.id} -w ${workspaceId}\`${errorsFile ? ` (--errors ${errorsFile} writes its row errors)` : ""}.`,
      exitCode: exitCodes.interrupted.code,
      errorCode: "interrupted",
    };
  }
  if (followed.timedOut) {
    return {
      data: raw,
      view: importView(done),
      message: `Import ${done.id} is still ${done.status} after ${timeoutSeconds} s (${count(done.processed_rows)} of ${count(done.total_rows)} rows); it goes on in the service. Follow it with \`reseller contacts imports get ${done.id}${await ctx.workspaceArg()}\`${errorsFile ? ` (--errors ${errorsFile} writes its row errors)` : ""}.`,
      exitCode: exitCodes.conflict.code,
      errorCode: "import_not_finished",
      details: [{ field: "import_id", message: done.id }],
    };
  }
  if (done.status === "failed")
    throw new CliError("unexpected", importSummary(done, undefined, workspaceId));
  if (errorsFile !== undefined) {
    const handle = await openOutputFile(errorsFile, "--errors");
    await writeImportErrors(client, workspaceId, done.id, handle);
  }
  const refused =
    booleanOption(options, "strict") && done.error_count > 0
      ? `\n--strict: exit code 6 because ${counted(done.error_count, "row was", "rows were")} refused.`
      : "";
  // Rows refused or opt-outs kept are what the service did not do as asked: said on stderr with
  // --json and --quiet too, where the summary (the message) is not, unless --strict fails the
  // command, which prints the message anyway.
  const machine = ctx.output === "json" || ctx.output === "quiet";
  const untold = machine && !refused && (done.error_count > 0 || done.opt_outs_kept > 0);
  const summary = importSummary(done, errorsFile, workspaceId);
  return {
    data: raw,
    view: importView(done),
    warnings: untold ? [summary] : undefined,
    message: `${summary}\n${columnsLine(done.mapping, done.delimiter, done.encoding)}${chosen}${unasked(ctx, options) ? lookAlikesLine(done.mapping) : ""}${refused}`,
    exitCode: refused ? 6 : 0,
    errorCode: "rows_refused",
    // The import happened: a script reads its id here to follow up (`imports get --errors`).
    details: [{ field: "import_id", message: done.id }, ...done.errors],
  };
}
