import Fastify, { LogController } from "fastify";
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import type { App } from "./app-types.js";
import type { AppConfig } from "./config.js";
import { newId } from "./domain/ids.js";
import { installAuthentication } from "./plugins/authentication.js";
import { installErrorHandling } from "./plugins/error-handling.js";
import { installOpenApi } from "./plugins/openapi.js";
import { installRateLimiting } from "./plugins/rate-limiting.js";
import { installRequestLogging } from "./plugins/request-logging.js";
import { planRoutes } from "./routes/plans.js";
import { tokenRoutes } from "./routes/tokens.js";

/** Largest JSON body accepted: a 100 MB CSV grows by a third in base64, plus the envelope. */
export const bodyLimitBytes = 140 * 1024 * 1024;

/** Builds the whole service as a fastify app; `serve` listens with it, tests `inject()` into it. */
export async function buildApp(config: AppConfig): Promise<App> {
  const app = Fastify({
    ...(config.logger ? { loggerInstance: config.logger } : { logger: false }),
    // One line per request is written by installRequestLogging instead of fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId("req"),
    bodyLimit: bodyLimitBytes,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const db = config.database.db;
  installErrorHandling(app);
  installRequestLogging(app);
  installAuthentication(app, { db, clock: config.clock });
  await installRateLimiting(app, config.rateLimit);
  await installOpenApi(app);

  planRoutes(app, { db, publicUrl: config.publicUrl });
  tokenRoutes(app, { db });
  return app;
}
