import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";

/** GET /healthz: the process is up and answering. */
export const Liveness = z.object({ status: z.literal("ok") }).meta({ id: "Liveness" });
export const LivenessResponse = successEnvelope(Liveness, EmptyMeta);

/** GET /readyz: the instance can serve traffic. */
export const Readiness = z
  .object({
    status: z.literal("ready"),
    database: z.literal("reachable"),
    migrations: z
      .object({
        applied: z.number().int().describe("Migrations this instance knows, all applied."),
      })
      .describe("Every migration this version of the service knows has been applied."),
  })
  .meta({ id: "Readiness" });
export const ReadinessResponse = successEnvelope(Readiness, EmptyMeta);
