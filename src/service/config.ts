import type { FastifyBaseLogger } from "fastify";
import type { DatabaseHandle } from "./db/database.js";
import type { Clock } from "./domain/clock.js";
import type { Mailer } from "./domain/outbox.js";
import type { WebhookSettings } from "./domain/webhook-delivery.js";
import type { JobRunnerOptions } from "./jobs/job-runner.js";
import type { SmtpSettings } from "./mail/smtp-mailer.js";
import type { SandboxTiming } from "./sandbox/sandbox-sender.js";

/** A per-token request budget: `max` requests in each window of `windowMs`. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/** Everything `buildApp` needs; `serve` fills it from flags, tests from helpers. */
export interface AppConfig {
  database: DatabaseHandle;
  clock: Clock;
  /** Base of links the service hands out, such as plans' `registration_url`; read per request. */
  publicUrl: () => string;
  rateLimit: RateLimit;
  /** Where emails (invitations) go beyond the outbox; without it the outbox is the destination. */
  smtp?: SmtpSettings | undefined;
  /** A ready mailer instead of one built from `smtp`; tests use it to see or fail sends. */
  mailer?: Mailer | undefined;
  /** Messages per second per channel (`serve --throughput`, default 80); 0 for no limit. */
  throughput?: number | undefined;
  /** How fast the sandbox reports deliveries and reads (tests shorten or lengthen it). */
  sandboxTiming?: SandboxTiming | undefined;
  /** Job runner tuning (lease, polling, concurrency); defaults suit a local service. */
  jobs?: Pick<JobRunnerOptions, "leaseMs" | "pollMs" | "concurrency">;
  /** A pino logger for the one JSON line per request; omitted in tests. */
  logger?: FastifyBaseLogger;
  /** Webhook deliveries: retry base, private-address guard, answer timeout (defaults suit production). */
  webhooks?: Partial<WebhookSettings> | undefined;
  /** Sandbox operator: how long after submission a template is reviewed (default 5 s; 0 at once). */
  reviewDelayMs?: number | undefined;
  /** The WhatsApp Cloud API provider: Graph base URL, secrets from the environment, timings. */
  whatsapp?: WhatsappSettings | undefined;
  /** Whether `/register` takes sign-ups from the public (`serve --no-public-signup`: false). */
  publicSignup?: boolean | undefined;
  /**
   * The reverse proxies in front (`serve --trust-proxy`: IPs, CIDR ranges or proxy-addr's names
   * such as `loopback`): a request from one of them is the client X-Forwarded-For names.
   */
  trustProxy?: readonly string[] | undefined;
}

/** `serve --review-delay` default: the sandbox reviews a submitted template after 5 seconds. */
export const defaultReviewDelayMs = 5000;

/** `serve --rate-limit` default: 6000 requests per token per minute. */
export const defaultRateLimit: RateLimit = { max: 6000, windowMs: 60_000 };

/**
 * `serve --webhook-retry-base` default, and webhook-delivery's: kept here, where `serve --help`
 * reads it without loading the delivery code into every CLI start.
 */
export const defaultWebhookRetryBaseMs = 60_000;

/** WhatsApp's default throughput per sending number, in messages per second. */
export const defaultThroughput = 80;

/** The WhatsApp Cloud API settings of `serve` (flags and RESELLER_* environment variables). */
export interface WhatsappSettings {
  /** `serve --graph-url`; default Meta's Graph API with the pinned version. */
  graphUrl?: string | undefined;
  /** RESELLER_SECRET_KEY: 32 bytes, base64; seals channel access tokens and webhook secrets. */
  secretKey?: string | undefined;
  /** RESELLER_WHATSAPP_APP_SECRET: checks webhook signatures. */
  appSecret?: string | undefined;
  /** RESELLER_WHATSAPP_VERIFY_TOKEN: answers Meta's webhook verification. */
  verifyToken?: string | undefined;
  /** How often templates are synced and unknown outcomes expired (default 15 minutes). */
  syncIntervalMs?: number | undefined;
  /** Time limit of one Graph API call (default 15 s). */
  graphTimeoutMs?: number | undefined;
}

/** How often the WhatsApp template sync runs: 15 minutes. */
export const defaultWhatsappSyncMs = 15 * 60 * 1000;
