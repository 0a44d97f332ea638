import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { errorCatalogue } from "../../contract/errors.js";
import type { App } from "../app-types.js";

const errorTable = Object.entries(errorCatalogue)
  .map(([code, { status, message }]) => `| ${status} | \`${code}\` | ${message} |`)
  .join("\n");

const description = `The plan catalogue and the reseller API of the WhatsApp-marketing platform.

Every request carries \`Authorization: Bearer <token>\`; each endpoint names the scope it needs.
Successful responses are \`{"status":"success","data":…,"meta":{…}}\`; errors are
\`{"status":"error","message":…,"error_code":…}\` with \`details\` on validation errors.
Every response carries \`X-Request-Id\`; budgeted responses carry \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\`, and a 429 carries \`Retry-After\`.

Lists take \`page\` (from 1) and \`per_page\` (1 to 100, default 20; out of range is a 422) and
answer \`meta.pagination\` with \`page\`, \`per_page\`, \`total\`, \`total_pages\` and
\`next_cursor\`. Pass \`next_cursor\` back as \`cursor\` to walk a list by key at the same cost
for every page; with a cursor, \`page\` is ignored. Lists are ordered newest first.

Every POST accepts an \`Idempotency-Key\` header (1 to 255 characters). The same key from the
same token within 24 hours replays the first response with \`Idempotent-Replayed: true\` and does
nothing again; the same key with another body is a 422 \`idempotency_key_reused\`. A response
that revealed a secret (a new token) is not stored: its replay is a 409
\`secret_not_replayable\` naming what was created.

| status | error_code | meaning |
|---|---|---|
${errorTable}
`;

/** Names each operation's scope: in its security requirement, and in words in its description. */
const withScope: typeof jsonSchemaTransform = (input) => {
  const result = jsonSchemaTransform(input);
  const scope = input.route.config?.scope;
  if (scope === undefined) return result;
  const needs =
    scope === "any" ? "Any valid token may call this." : `Needs the \`${scope}\` scope.`;
  const schema = result.schema as { description?: string };
  return {
    ...result,
    schema: {
      ...result.schema,
      description: schema.description ? `${schema.description}\n\n${needs}` : needs,
      security: [{ bearer: scope === "any" ? [] : [scope] }],
    },
  };
};

/** The OpenAPI document generated from the contract, at /api/v1/openapi.json, and /docs. */
export async function installOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Reseller Platform API",
        version: "1.0.0",
        description,
        license: { name: "MIT", identifier: "MIT" },
      },
      // Relative: the paths are absolute, on whichever host served this document.
      servers: [{ url: "/", description: "The service that serves this document" }],
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "rsk_… or wsk_… token" },
        },
      },
      security: [{ bearer: [] }],
    },
    transform: withScope,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true },
  });
  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("application/json").send(app.swagger()),
  );
}
