import type { AddressInfo } from "node:net";
import pino from "pino";
import { buildApp } from "./app.js";
import type { App } from "./app-types.js";
import { type BootstrapResult, bootstrap } from "./bootstrap.js";
import type { RateLimit } from "./config.js";
import { openDatabase } from "./db/database.js";
import { systemClock } from "./domain/clock.js";

/** How `reseller serve` was asked to run. */
export interface ServeOptions {
  host: string;
  port: number;
  dbFile: string;
  plansFile?: string | undefined;
  publicUrl?: string | undefined;
  rateLimit: RateLimit;
  bootstrapToken?: string | undefined;
  /** `smtp[s]://user:pass@host:port` to send invitations through; the outbox always keeps them. */
  smtpUrl?: string | undefined;
  logLevel: string;
  /** Sandbox operator: milliseconds from a template's submission to its review. */
  reviewDelayMs?: number | undefined;
  /** Messages per second per channel; 0 for no limit. */
  throughput?: number | undefined;
}

/** A running service. */
export interface RunningService {
  app: App;
  url: string;
  bootstrap: BootstrapResult;
  /** Stops taking requests, finishes the ones in flight, closes the database. */
  close(): Promise<void>;
}

/** Opens the database, readies it, and listens; the caller decides about signals. */
export async function startService(options: ServeOptions): Promise<RunningService> {
  const database = await openDatabase(options.dbFile);
  const clock = systemClock;
  const result = await bootstrap(database.db, clock, {
    bootstrapToken: options.bootstrapToken,
    plansFile: options.plansFile,
  });
  // Known only after listen when the port is 0, so links are built from it lazily.
  let listeningUrl = "";
  const app = await buildApp({
    database,
    clock,
    publicUrl: () => options.publicUrl ?? listeningUrl,
    rateLimit: options.rateLimit,
    smtp: options.smtpUrl ? { url: options.smtpUrl } : undefined,
    logger: pino({ level: options.logLevel }),
    reviewDelayMs: options.reviewDelayMs,
    throughput: options.throughput,
    // Campaigns, imports, reviews and the sandbox's reports can all be under way at once.
    jobs: { concurrency: 4 },
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await database.close();
    throw error;
  }
  await app.jobs.start();
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  listeningUrl = `http://${host}:${address.port}`;
  return {
    app,
    url: listeningUrl,
    bootstrap: result,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
