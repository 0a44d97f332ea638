import { defaultPort } from "../../../contract/local-service.js";
import { redactedUrl } from "../../../contract/redacted-url.js";
import { CatalogueFileError } from "../../../service/catalogue/catalogue-file.js";
import { signInLinkLifetimeText } from "../../../service/dashboard/sessions.js";
import { DatabaseUnavailableError } from "../../../service/db/database-errors.js";
import type { LogFormat } from "../../../service/human-log.js";
import { dashboardSignInLink } from "../../../service/routes/dashboard.js";
import { type RunningService, type ServeOptions, startService } from "../../../service/server.js";
import { CliError, exitCodes } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { type DatabaseTarget, databaseTarget } from "../../database-target.js";
import { booleanOption, intOption, stringOption } from "../../options.js";
import { explainedDatabaseError } from "../admin/database-errors.js";
import { bootstrapTokenOption, hostOption, serveSettings } from "./serve-settings.js";

/** A bootstrap token shorter than this is said to be guessable (a generated one has 52). */
const weakTokenLength = 32;

/** Why the service cannot listen where asked, by the socket's error code. */
const listenProblems = new Map([
  ["EADDRINUSE", "the port is in use"],
  ["EACCES", "not allowed (ports under 1024 need privileges)"],
  ["EADDRNOTAVAIL", "no such address on this machine"],
  ["ENOTFOUND", "no such host name"],
  ["EAI_AGAIN", "no such host name"],
]);

/**
 * startService, with a database that cannot be opened told as such (as the admin commands tell
 * it, not a stack), and a bad --plans file or an address it cannot listen on as a usage error
 * (exit 2) that says why.
 */
export async function startServiceOrExplain(options: ServeOptions): Promise<RunningService> {
  try {
    return await startService(options);
  } catch (error) {
    // The listening socket's own errors come unwrapped; the database's are wrapped by its open.
    const code = (error as NodeJS.ErrnoException | null)?.code;
    const why = code === undefined ? undefined : listenProblems.get(code);
    if (why !== undefined) {
      throw new CliError(
        "usage",
        `Cannot listen on ${options.host}:${options.port}: ${why}.`,
        "Pick another --port (0 picks a free one) or --host, or stop what listens there.",
      );
    }
    // One wording and exit code for a database problem, whichever command met it first.
    const explained = explainedDatabaseError(
      error,
      redactedUrl(options.database),
      "Point --db at the file `reseller serve --db` used before, or at a new file in a folder that exists (it is created).",
    );
    if (explained instanceof CliError) throw explained;
    if (error instanceof DatabaseUnavailableError) {
      throw new CliError(
        "unreachable",
        error.message,
        "Check --database (or DATABASE_URL): the server must be running and the user, password and database must exist.",
        [],
        "database_unreachable",
      );
    }
    if (error instanceof CatalogueFileError) {
      throw new CliError(
        "usage",
        error.message,
        'Fix the file given to --plans: {"currency": {…}, "plans": […]} (the project\'s docs/guide.md and examples/plans.json show one).',
      );
    }
    throw error;
  }
}

/** `reseller serve`: starts the service and runs until SIGINT or SIGTERM. */
export const run: Handler = async (ctx, { options }) => {
  const settings = serveSettings(options, ctx.env);
  const bootstrapToken = bootstrapTokenOption(ctx.env);
  const database = databaseTarget(options, ctx.env, "reseller.db") as DatabaseTarget;
  if (database.warning) ctx.info(database.warning);
  const service = await startServiceOrExplain({
    ...settings,
    host: hostOption(options),
    port: intOption(options, "port", { min: 0, max: 65535 }) ?? defaultPort,
    database: database.target,
    bootstrapToken,
    logLevel: stringOption(options, "logLevel") ?? "info",
    // Readable lines for a person at a terminal; JSON for log collectors (piped or asked for).
    logFormat: (stringOption(options, "logFormat") ??
      (ctx.io.stdout.isTTY ? "pretty" : "json")) as LogFormat,
    logDestination: ctx.io.stdout,
  });
  // With --public-url the sign-in link is on it: an https address makes the session cookie
  // Secure, which a browser drops on the listening address's plain http.
  const dashboardUrl = (settings.publicUrl === undefined ? service.url : service.linkUrl).replace(
    /\/+$/,
    "",
  );
  // The link signs whoever opens it in as the first reseller: printed at a terminal, not into
  // a log collector's files (systemd, docker) unless asked for.
  const signInLink = ctx.io.stderr.isTTY === true || booleanOption(options, "signInLink");
  const lines = [
    `reseller service listening on ${service.url} (database ${database.label})`,
    `API reference: ${service.url}/docs   OpenAPI: ${service.url}/api/v1/openapi.json`,
    signInLink
      ? `Dashboard: ${dashboardUrl}/dashboard   one-time sign-in link (${signInLinkLifetimeText}): ${await dashboardSignInLink(service.app, dashboardUrl)}`
      : `Dashboard: ${dashboardUrl}/dashboard   (sign in with a reseller token; --sign-in-link prints a one-time link, which whoever reads this log could use)`,
  ];
  if (settings.publicUrl === undefined && service.linkUrl !== service.url) {
    lines.push(
      `Sign-up links (registration_url, invitations) use ${service.linkUrl}: set --public-url to the address your clients reach.`,
    );
  }
  if (service.bootstrap.catalogue === "demo")
    lines.push("Loaded the demo plan catalogue (use --plans FILE for your own).");
  // "Invitation sent" means it reached the outbox: say where that is when nothing is emailed.
  if (settings.smtpUrl === undefined)
    lines.push(
      `No --smtp-url: invitation emails stay in the outbox (${dashboardUrl}/dashboard, Outbox).`,
    );
  const token = service.bootstrap.createdToken;
  if (token) {
    lines.push(
      "Created the first reseller account.",
      // The value used, not the variable: one holding only a line break was no token.
      bootstrapToken !== undefined
        ? "Its token is the value of RESELLER_BOOTSTRAP_TOKEN."
        : `Its token, shown only this once:\n\n    ${token}\n`,
      // Without --token-stdin: at a terminal, login asks for the token without echoing it.
      `Log in with: reseller login --base-url ${service.url}   (at a terminal it asks for the token; a script adds --token-stdin)`,
    );
    // Accepted (a laptop's dev token is fine), but said: it opens every client's data.
    if (bootstrapToken !== undefined && bootstrapToken.length < weakTokenLength) {
      lines.push(
        `RESELLER_BOOTSTRAP_TOKEN is ${bootstrapToken.length} characters: fine on a laptop, but a service others reach needs a long random one, e.g. rsk_$(openssl rand -hex 24); whoever guesses it reads every client's data.`,
      );
    }
  }
  // A second signal while closing means "now": the handler returns at once and main() exits,
  // leaving what is in flight (leases expire; the database is consistent at every commit).
  let again: (signal: string) => void = () => {};
  const signalledAgain = new Promise<string>((resolve) => {
    again = resolve;
  });
  const stopped = new Promise<string>((resolve) => {
    let shuttingDown = false;
    const onSignal = (signal: string) => {
      if (shuttingDown) return again(signal);
      shuttingDown = true;
      resolve(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  ctx.info(lines.join("\n"));
  const signal = await stopped;
  ctx.info(`${signal} received: finishing requests in flight and closing the database…`);
  const closed = Symbol("closed");
  const ended = await Promise.race([service.close().then(() => closed), signalledAgain]);
  if (ended !== closed) {
    return {
      message: `${String(ended)} received again: stopped at once, without waiting for requests in flight.`,
      exitCode: exitCodes.interrupted.code,
      errorCode: "interrupted",
    };
  }
  ctx.info("Stopped.");
  return {};
};
