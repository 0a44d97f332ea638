import type { App } from "../app-types.js";
import { invalidFields, ServiceError } from "../domain/service-error.js";

/**
 * A path whose id is empty (`/api/v1/workspaces/`, a trailing slash) names no resource of its
 * route: it is no endpoint, as the documented paths say, not "Workspace '' was not found".
 */
export function refuseEmptyIds(app: App): void {
  app.addHook("preValidation", async (request) => {
    if (request.is404) return;
    const params = Object.values((request.params ?? {}) as Record<string, unknown>);
    if (!params.includes("")) return;
    throw new ServiceError(
      "not_found",
      `No endpoint ${request.method} ${request.url.split("?")[0]}.`,
    );
  });
}

/**
 * An API route that takes no body (launch, cancel, submit, archive, a DELETE) refuses one that
 * says something: `{"dry_run": true}` sent to a launch would otherwise launch, as if the field had
 * been understood. No body, `{}` and `null` (what HTTP wrappers send with every POST) are none.
 */
export function refuseBodiesOfBodilessRoutes(app: App): void {
  app.addHook("preValidation", async (request) => {
    if (request.is404 || !request.url.startsWith("/api/")) return;
    if (request.routeOptions.schema?.body !== undefined) return;
    const body: unknown = request.body;
    if (body === undefined || body === null) return;
    const fields =
      typeof body === "object" && !Array.isArray(body) ? Object.keys(body as object) : null;
    if (fields?.length === 0) return;
    const details = (fields ?? ["(body)"]).map((field) => ({
      field,
      message:
        field === "(body)"
          ? "this endpoint takes no body: send none (or {})"
          : "is not a field this endpoint accepts: it takes no body",
    }));
    throw invalidFields(details);
  });
}
