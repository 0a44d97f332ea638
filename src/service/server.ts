import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import pino from "pino";
import { buildApp } from "./app.js";
import type { App } from "./app-types.js";
import { type BootstrapResult, bootstrap } from "./bootstrap.js";
import { readCatalogueFile } from "./catalogue/catalogue-file.js";
import type { RateLimit, WhatsappSettings } from "./config.js";
import { openDatabase } from "./db/database.js";
import { systemClock } from "./domain/clock.js";
import { removeUnshownReseller } from "./domain/resellers.js";
import { removeAbandonedUploads } from "./domain/upload-files.js";
import { humanLogDestination, type LogFormat } from "./human-log.js";
import { scheduleLifecycleSweep } from "./jobs/lifecycle-sweep-job.js";
import { loggedError } from "./log-errors.js";

/** How `reseller serve` was asked to run. */
export interface ServeOptions {
  host: string;
  port: number;
  /** A SQLite file, or a `postgres://…` URL. */
  database: string;
  plansFile?: string | undefined;
  publicUrl?: string | undefined;
  rateLimit: RateLimit;
  bootstrapToken?: string | undefined;
  /** `smtp[s]://user:pass@host:port` to send invitations through; the outbox always keeps them. */
  smtpUrl?: string | undefined;
  logLevel: string;
  /** JSON lines (the default) or readable lines (`serve` at a terminal). */
  logFormat?: LogFormat | undefined;
  /** Where log lines go (default: stdout). */
  logDestination?: { write(text: string): unknown } | undefined;
  /** Sandbox operator: milliseconds from a template's submission to its review. */
  reviewDelayMs?: number | undefined;
  /** Messages per second per channel; 0 for no limit. */
  throughput?: number | undefined;
  /** First webhook retry delay in milliseconds (doubling after each failure); default 60 s. */
  webhookRetryBaseMs?: number | undefined;
  /** Refuse webhook URLs that resolve to loopback, private or link-local addresses. */
  blockPrivateWebhooks?: boolean | undefined;
  /** Whether /register takes public sign-ups (`--no-public-signup` turns it off). */
  publicSignup?: boolean | undefined;
  /** `--trust-proxy`: the reverse proxies whose X-Forwarded-For names the client. */
  trustProxy?: readonly string[] | undefined;
  /** The WhatsApp Cloud API provider: `--graph-url` and the RESELLER_* secrets. */
  whatsapp?: WhatsappSettings | undefined;
}

/** A running service. */
export interface RunningService {
  app: App;
  /** Where it listens. */
  url: string;
  /** The base of links in answers and emails (sign-up links): --public-url, else where it listens. */
  linkUrl: string;
  bootstrap: BootstrapResult;
  /** Stops taking requests, finishes the ones in flight, closes the database. */
  close(): Promise<void>;
}

function serviceLogger(options: ServeOptions) {
  const settings = { level: options.logLevel, serializers: { err: loggedError } };
  const out = options.logDestination ?? process.stdout;
  if (options.logFormat === "pretty") {
    return pino(settings, humanLogDestination(out));
  }
  return options.logDestination
    ? pino(settings, { write: (line: string) => out.write(line) })
    : pino(settings);
}

/** How often an instance looks for upload files a killed process left behind. */
const uploadSweepMs = 10 * 60 * 1000;

/**
 * Deletes abandoned upload files now and every uploadSweepMs: a crashed instance is restarted at
 * once, when its leftovers are still too young to tell from an upload in progress.
 */
function sweepAbandonedUploads(app: App): NodeJS.Timeout {
  const sweep = () => {
    removeAbandonedUploads(Date.now()).then(
      (removed) => {
        if (removed > 0) {
          app.log.info({ removed }, "deleted upload files a process killed mid-upload left behind");
        }
      },
      (error: unknown) => app.log.warn({ err: error }, "could not look for abandoned upload files"),
    );
  };
  sweep();
  return setInterval(sweep, uploadSweepMs).unref();
}

/** Opens the database, readies it, and listens; the caller decides about signals. */
export async function startService(options: ServeOptions): Promise<RunningService> {
  // Read first: a bad file stops the start before a database is created or migrated for it.
  const catalogue = options.plansFile ? await readCatalogueFile(options.plansFile) : undefined;
  const database = await openDatabase(options.database);
  const clock = systemClock;
  // Known only after listen when the port is 0, so links are built from it lazily.
  let listeningUrl = "";
  let app: App | undefined;
  let result: BootstrapResult | undefined;
  try {
    result = await bootstrap(database.db, clock, {
      bootstrapToken: options.bootstrapToken,
      catalogue,
    });
    app = await buildApp({
      database,
      clock,
      publicUrl: () => options.publicUrl ?? listeningUrl,
      rateLimit: options.rateLimit,
      smtp: options.smtpUrl ? { url: options.smtpUrl } : undefined,
      logger: serviceLogger(options),
      reviewDelayMs: options.reviewDelayMs,
      throughput: options.throughput,
      webhooks: {
        ...(options.webhookRetryBaseMs === undefined
          ? {}
          : { retryBaseMs: options.webhookRetryBaseMs }),
        blockPrivate: options.blockPrivateWebhooks ?? false,
      },
      publicSignup: options.publicSignup,
      trustProxy: options.trustProxy,
      whatsapp: options.whatsapp,
      // Campaign sends, reviews and the sandbox's reports can all be under way at once; imports
      // and webhook deliveries have slots of their own besides (jobLanes in job-handlers.ts).
      jobs: { concurrency: 4 },
    });
    await app.listen({ host: options.host, port: options.port });
    // Trials end and old events go by a recurring job; one exists however often it starts.
    await scheduleLifecycleSweep(database.db, clock);
    await app.jobs.start();
  } catch (error) {
    // Nothing half-started stays behind: the app (and its timers), an account whose token was
    // never shown, and the database's connections.
    await app?.close().catch(() => undefined);
    const unshown = result?.createdResellerId;
    if (unshown) await removeUnshownReseller(database.db, unshown).catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
  const sweeper = sweepAbandonedUploads(app);
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // Listening on every address, the links in answers and emails name the machine instead.
  const everywhere = address.address === "0.0.0.0" || address.address === "::";
  listeningUrl = everywhere ? `http://${hostname()}:${address.port}` : url;
  return {
    app,
    url,
    linkUrl: options.publicUrl ?? listeningUrl,
    bootstrap: result,
    close: async () => {
      // In the log too, for an operator who collects only it: a stop is not a crash.
      app.log.info("stopping: no new requests; finishing those in flight, handing job leases back");
      clearInterval(sweeper);
      await app.close();
      await database.close();
      app.log.info("stopped");
    },
  };
}
