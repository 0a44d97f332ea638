import type { Services } from "../services.js";
import type { JobHandler } from "./job-runner.js";

/** Every kind of durable job and its handler; a feature with background work adds its line. */
export function jobHandlers(_services: Services): Record<string, JobHandler> {
  return {};
}
