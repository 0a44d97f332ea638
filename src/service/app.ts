import Fastify, { LogController } from "fastify";
import { serializerCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { App } from "./app-types.js";
import { otherBodyLimitBytes } from "./body-limits.js";
import {
  type AppConfig,
  defaultReviewDelayMs,
  defaultThroughput,
  defaultWhatsappSyncMs,
} from "./config.js";
import { newRequestId } from "./domain/ids.js";
import { secretBoxFromKey } from "./domain/secret-box.js";
import { defaultWebhookSettings } from "./domain/webhook-delivery.js";
import { plainSigningSecretCount, sealPlainSigningSecrets } from "./domain/webhook-endpoints.js";
import { jobHandlers, jobLanes } from "./jobs/job-handlers.js";
import { campaignRunJob, contactImportJobKind } from "./jobs/job-kinds.js";
import { JobRunner } from "./jobs/job-runner.js";
import { smtpMailer } from "./mail/smtp-mailer.js";
import { unopenableChannelCount, WhatsappCloudProvider } from "./messaging/cloud-provider.js";
import { defaultGraphUrl, GraphClient } from "./messaging/graph-client.js";
import { messagingProviders } from "./messaging/provider-routing.js";
import { installAuthentication } from "./plugins/authentication.js";
import {
  clientErrorHandlerWith,
  frameworkErrors,
  installErrorHandling,
} from "./plugins/error-handling.js";
import { installIdempotency } from "./plugins/idempotency.js";
import { installOpenApi } from "./plugins/openapi.js";
import { rateLimitMeter } from "./plugins/rate-limiting.js";
import { installRequestLogging } from "./plugins/request-logging.js";
import { refuseWhileStopping } from "./plugins/stopping.js";
import { storableTextValidator } from "./plugins/storable-text.js";
import { campaignRoutes } from "./routes/campaigns.js";
import { channelRoutes } from "./routes/channels.js";
import { contactImportRoutes } from "./routes/contact-imports.js";
import { contactRoutes } from "./routes/contacts.js";
import { dashboardRoutes } from "./routes/dashboard.js";
import { eventRoutes } from "./routes/events.js";
import { healthRoutes } from "./routes/health.js";
import { jobRoutes } from "./routes/jobs.js";
import { outboxRoutes } from "./routes/outbox.js";
import { planRoutes } from "./routes/plans.js";
import { registerRoutes } from "./routes/register.js";
import { sandboxInboundRoutes } from "./routes/sandbox-inbound.js";
import { templateRoutes } from "./routes/templates.js";
import { tokenRoutes } from "./routes/tokens.js";
import { usageRoutes } from "./routes/usage.js";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.js";
import { whatsappWebhookRoutes } from "./routes/whatsapp-webhooks.js";
import { workspaceTokenRoutes } from "./routes/workspace-tokens.js";
import { workspaceRoutes } from "./routes/workspaces.js";
import { sandboxMessagingProvider } from "./sandbox/sandbox-provider.js";
import { scheduleSandboxReports } from "./sandbox/sandbox-reports.js";
import { defaultSandboxTiming, sandboxSender } from "./sandbox/sandbox-sender.js";
import { jobScheduler, type Services } from "./services.js";

/** Job kinds whose start and end the log records: a campaign's run and an import. */
const loggedJobKinds = new Set([campaignRunJob, contactImportJobKind]);

/** Builds the whole service as a fastify app; `serve` listens with it, tests `inject()` into it. */
export async function buildApp(config: AppConfig): Promise<App> {
  const app: App = Fastify({
    ...(config.logger ? { loggerInstance: config.logger } : { logger: false }),
    // One line per request is written by installRequestLogging instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: newRequestId,
    bodyLimit: otherBodyLimitBytes,
    // Per-address limits (sign-ups, requests without a valid token) need the client's address,
    // not the proxy's; X-Forwarded-For is believed only from the proxies named.
    trustProxy: config.trustProxy?.length ? [...config.trustProxy] : false,
    // Answered by refuseWhileStopping below, in the service's envelope and with its headers.
    return503OnClosing: false,
    frameworkErrors,
    // Client errors reach it only once it listens, when rate limiting has decorated it.
    clientErrorHandler: clientErrorHandlerWith(
      (address): Record<string, number> => app.addressBudget(address),
    ),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(storableTextValidator);
  app.setSerializerCompiler(serializerCompiler);

  const db = config.database.db;
  installErrorHandling(app);
  installRequestLogging(app);
  // Before any token is looked up or counted: a stopping instance sheds every request alike.
  refuseWhileStopping(app);
  // Rate limiting counts each request once authentication has resolved its token.
  const meter = rateLimitMeter(app, config.rateLimit, { db, clock: config.clock });
  installAuthentication(app, { db, clock: config.clock, meter });
  // After authentication (keys are per token) and before every route, so each POST gets it.
  installIdempotency(app, { db, clock: config.clock });
  await installOpenApi(app);

  let runner: JobRunner | undefined;
  const whatsapp = config.whatsapp ?? {};
  // One key seals every secret at rest: channels' access tokens and webhooks' signing secrets.
  const secrets = whatsapp.secretKey ? secretBoxFromKey(whatsapp.secretKey) : null;
  const cloud = new WhatsappCloudProvider({
    db,
    clock: config.clock,
    graph: new GraphClient({
      baseUrl: whatsapp.graphUrl ?? defaultGraphUrl,
      timeoutMs: whatsapp.graphTimeoutMs,
    }),
    secrets,
    recheckMs: whatsapp.syncIntervalMs ?? defaultWhatsappSyncMs,
  });
  const sandboxTiming = config.sandboxTiming ?? defaultSandboxTiming;
  const messaging = messagingProviders({
    db,
    cloud,
    sandbox: sandboxMessagingProvider({
      reviewDelayMs: config.reviewDelayMs ?? defaultReviewDelayMs,
      sender: sandboxSender({
        db,
        clock: config.clock,
        timing: sandboxTiming,
        scheduleReports: (at) => scheduleSandboxReports(db, services.jobs, at),
      }),
    }),
  });
  const services: Services = {
    db,
    clock: config.clock,
    publicUrl: config.publicUrl,
    mailer: config.mailer ?? (config.smtp ? smtpMailer(config.smtp) : null),
    jobs: jobScheduler(config.clock, () => runner),
    messaging,
    sender: messaging.sender,
    throughput: config.throughput ?? defaultThroughput,
    sandboxTiming,
    whatsapp: {
      appSecret: whatsapp.appSecret ?? null,
      verifyToken: whatsapp.verifyToken ?? null,
      syncIntervalMs: whatsapp.syncIntervalMs ?? defaultWhatsappSyncMs,
    },
    webhooks: { ...defaultWebhookSettings, secrets, ...config.webhooks },
  };
  // A key set after endpoints were made protects their secrets too, from this start on.
  if (services.webhooks.secrets) await sealPlainSigningSecrets(db, services.webhooks.secrets);
  else {
    const plain = await plainSigningSecretCount(db);
    if (plain > 0)
      app.log.warn(
        { endpoints: plain },
        `${plain === 1 ? "1 webhook endpoint keeps its" : `${plain} webhook endpoints keep their`} signing secret in clear in the database: set RESELLER_SECRET_KEY (32 bytes, base64) to seal ${plain === 1 ? "it" : "them"} at the next start (docs/webhooks.md)`,
      );
  }
  // Tokens sealed under another key (or with no key set) cannot send: said once, at start.
  const unopenable = await unopenableChannelCount(db, secrets);
  if (unopenable > 0)
    app.log.warn(
      { channels: unopenable },
      `${unopenable === 1 ? "1 WhatsApp Cloud channel has an access token" : `${unopenable} WhatsApp Cloud channels have access tokens`} that ${secrets ? "this RESELLER_SECRET_KEY cannot open (sealed under another key)" : "cannot be opened without RESELLER_SECRET_KEY"}: set the key the tokens were sealed with, or add the numbers again with fresh tokens (docs/whatsapp-cloud.md)`,
    );
  runner = new JobRunner({
    db,
    clock: config.clock,
    handlers: jobHandlers(services),
    lanes: jobLanes,
    ...config.jobs,
    onError: (error, job) =>
      app.log.error(
        { err: error, job: job?.id, kind: job?.kind },
        job
          ? "job run failed (retried with backoff; the job fails only after five runs in a row)"
          : "job runner: polling failed (reported again each minute it lasts)",
      ),
    onRecovered: (failures) => app.log.info({ failures }, "job runner: polling works again"),
    onStopFailed: (error) =>
      app.log.error(
        { err: error },
        "stopping without handing back job leases (the database does not answer): other instances take the jobs over once the leases run out (30 s)",
      ),
    onJob: (job, ended) => {
      // Long work only: a line per webhook delivery or sandbox report would drown the rest.
      if (!loggedJobKinds.has(job.kind)) return;
      const at = { job: job.id, kind: job.kind, attempt: job.attempts };
      // A run that only checks back later (a paused campaign, a throughput wait) is no news.
      if (ended) {
        if (ended.state !== "retry") app.log.info({ ...at, ...ended }, `job ${ended.state}`);
      } else if (job.attempts > 1) {
        // Claimed again without the earlier claim settling: its instance died, or the run threw.
        app.log.info(
          at,
          "job resumed from its checkpoint (an earlier run did not end: an instance died or the run failed)",
        );
      } else if (job.checkpoint === null) {
        app.log.info(at, "job started");
      }
    },
  });
  app.decorate("jobs", runner);
  // Claims end as the stop begins, not once every connection has drained: a client holding one
  // open kept this instance claiming jobs for as long (50 s in one run). Not waited for there,
  // so open streams end at once too; handlers have checkpointed before the database closes.
  let jobsStopped: Promise<void> | undefined;
  const stopJobs = () => {
    jobsStopped ??= runner?.stop() ?? Promise.resolve();
    return jobsStopped;
  };
  app.addHook("preClose", (done) => {
    // Its failure is the onClose hook's to report.
    stopJobs().catch(() => undefined);
    done();
  });
  app.addHook("onClose", () => stopJobs());
  healthRoutes(app, { db });
  planRoutes(app, { db, publicUrl: config.publicUrl });
  tokenRoutes(app, services);
  workspaceRoutes(app, services);
  workspaceTokenRoutes(app, services);
  contactRoutes(app, services);
  contactImportRoutes(app, services);
  templateRoutes(app, services);
  channelRoutes(app, services);
  campaignRoutes(app, services);
  webhookEndpointRoutes(app, {
    ...services,
    blockPrivateWebhooks: services.webhooks.blockPrivate,
    resolver: services.webhooks.resolver,
    secrets: services.webhooks.secrets,
  });
  eventRoutes(app, services);
  usageRoutes(app, services);
  sandboxInboundRoutes(app, services);
  whatsappWebhookRoutes(app, services);
  jobRoutes(app, services);
  outboxRoutes(app, services);
  dashboardRoutes(app, services);
  registerRoutes(app, services, { publicSignup: config.publicSignup ?? true });
  return app;
}
