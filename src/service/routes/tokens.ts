import { CurrentTokenResponse } from "../../contract/tokens.js";
import type { App } from "../app-types.js";
import type { Db } from "../db/database.js";
import { currentToken } from "../domain/tokens.js";
import { principalOf } from "../plugins/authentication.js";
import { errorResponses } from "./responses.js";

/** Token endpoints: who am I, and (for resellers) managing further tokens. */
export function tokenRoutes(app: App, deps: { db: Db }): void {
  app.get(
    "/api/v1/tokens/current",
    {
      config: { scope: "any" },
      schema: {
        tags: ["Tokens"],
        summary: "Describe the token making the request",
        description:
          "Any valid token may read itself: its kind, scopes and workspace. `reseller login` uses it to check a token before saving it.",
        response: { 200: CurrentTokenResponse, ...errorResponses(401, 429) },
      },
    },
    async (request) => {
      const data = await currentToken(deps.db, principalOf(request));
      return { status: "success" as const, data, meta: {} };
    },
  );
}
