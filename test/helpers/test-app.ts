import type { FastifyBaseLogger, LightMyRequestResponse } from "fastify";
import type { Scope } from "../../src/contract/scopes.js";
import { buildApp } from "../../src/service/app.js";
import type { App } from "../../src/service/app-types.js";
import { bootstrap } from "../../src/service/bootstrap.js";
import { readCatalogueFile } from "../../src/service/catalogue/catalogue-file.js";
import {
  type AppConfig,
  defaultRateLimit,
  type RateLimit,
  type WhatsappSettings,
} from "../../src/service/config.js";
import { type DatabaseHandle, openDatabase } from "../../src/service/db/database.js";
import type { Clock } from "../../src/service/domain/clock.js";
import type { Mailer, OutgoingMail } from "../../src/service/domain/outbox.js";
import { createReseller } from "../../src/service/domain/resellers.js";
import { issueToken } from "../../src/service/domain/tokens.js";
import type { SandboxTiming } from "../../src/service/sandbox/sandbox-sender.js";
import { conformanceChecker, type OpenApiDocument } from "./openapi-conformance.js";
import { createTestDatabase, onPostgres } from "./postgres-databases.js";

export const adminToken = "rsk_test_admin_token_with_every_scope";
export const publicUrl = "https://pricing.example.test";

/** A settable clock for time-dependent rules. */
export class TestClock implements Clock {
  constructor(private current = new Date("2026-11-22T09:30:00Z")) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface TestApp {
  app: App;
  database: DatabaseHandle;
  clock: TestClock;
  /** A reseller token with every scope. */
  token: string;
  /** GET/POST/… with the admin token unless another one (or null for none) is given. */
  request(
    method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT",
    url: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Mints a token of the first reseller with just these scopes. */
  tokenWith(scopes: Scope[], workspaceId?: string): Promise<string>;
  /** A second reseller account, for isolation tests. */
  otherReseller(): Promise<string>;
  /** Creates a workspace (admin token unless given) and returns its id. */
  createWorkspace(body?: Record<string, unknown>, token?: string): Promise<string>;
  /** Runs every durable job that is due at the test clock's time; returns how many ran. */
  runJobs(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A fresh database for one test: in memory on SQLite, or a copy of the migrated template on the
 * PostgreSQL project's cluster (dropped when the handle closes).
 */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  if (!onPostgres()) return openDatabase(":memory:");
  const created = await createTestDatabase();
  const database = await openDatabase(created.url);
  return {
    ...database,
    close: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/** A fresh service on an in-memory database with the demo catalogue and a known admin token. */
export async function startTestApp(
  options: {
    rateLimit?: RateLimit;
    plansFile?: string;
    mailer?: Mailer;
    throughput?: number;
    sandboxTiming?: SandboxTiming;
    /** WhatsApp Cloud API settings (Graph URL, secrets): the fake Graph tests pass them. */
    whatsapp?: WhatsappSettings;
    /** A pino logger, for tests that read the service's log lines. */
    logger?: FastifyBaseLogger;
    /** Webhook delivery settings (retry base, private-address guard, timeout). */
    webhooks?: AppConfig["webhooks"];
    /** A database of the caller's (closed with the app): two apps on one are two instances. */
    database?: DatabaseHandle;
    /** The service's public URL, when a test needs another than `publicUrl` (HTTPS). */
    publicUrl?: string;
    /** `serve --trust-proxy`: the proxies whose X-Forwarded-For names the client. */
    trustProxy?: readonly string[];
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await openTestDatabase());
  const clock = new TestClock();
  await bootstrap(database.db, clock, {
    bootstrapToken: adminToken,
    catalogue: options.plansFile ? await readCatalogueFile(options.plansFile) : undefined,
  });
  const app = await buildApp({
    database,
    clock,
    publicUrl: () => options.publicUrl ?? publicUrl,
    rateLimit: options.rateLimit ?? defaultRateLimit,
    mailer: options.mailer,
    throughput: options.throughput ?? 0,
    sandboxTiming: options.sandboxTiming,
    whatsapp: options.whatsapp,
    webhooks: options.webhooks,
    trustProxy: options.trustProxy,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await app.ready();
  // Every answer is checked against the OpenAPI document the service serves.
  const conformance = conformanceChecker(app.swagger() as unknown as OpenApiDocument);
  const request: TestApp["request"] = async (
    method,
    url,
    { token = adminToken, body, headers = {} } = {},
  ) => {
    const response = await app.inject({
      method,
      url,
      headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
      ...(body === undefined ? {} : { payload: body as string | object }),
    });
    conformance.check({
      method,
      url,
      statusCode: response.statusCode,
      contentType: response.headers["content-type"] as string | undefined,
      body: response.body,
    });
    return response;
  };
  const resellerId = (
    await database.db.selectFrom("resellers").select("id").executeTakeFirstOrThrow()
  ).id;
  return {
    app,
    database,
    clock,
    token: adminToken,
    request,
    tokenWith: async (scopes, workspaceId) =>
      (
        await issueToken(database.db, clock, {
          resellerId,
          workspaceId: workspaceId ?? null,
          name: "test",
          scopes,
        })
      ).secret,
    otherReseller: async () =>
      (await createReseller(database.db, clock, { name: "Other reseller" })).token.secret,
    createWorkspace: async (body = {}, token = adminToken) => {
      const res = await request("POST", "/api/v1/workspaces", {
        token,
        body: { name: "Acme", contact_email: "owner@acme.test", send_invitation: false, ...body },
      });
      if (res.statusCode !== 201) throw new Error(`workspace create failed: ${res.body}`);
      return (res.json() as { data: { id: string } }).data.id;
    },
    runJobs: () => app.jobs.runDue(),
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/** A mailer that keeps what it was asked to send, or fails every send when told to. */
export class RecordingMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];
  constructor(private readonly failWith?: string) {}
  async send(mail: OutgoingMail): Promise<void> {
    if (this.failWith !== undefined) throw new Error(this.failWith);
    this.sent.push(mail);
  }
}
