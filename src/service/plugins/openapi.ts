import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { errorCatalogue } from "../../contract/errors.js";
import { billingPeriods } from "../../contract/vocabulary.js";
import type { App } from "../app-types.js";

/** Text for the description's Markdown, which /docs renders as HTML: `<token>` must show. */
const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

const errorTable = Object.entries(errorCatalogue)
  .map(([code, { status, message }]) => `| ${status} | \`${code}\` | ${escapeHtml(message)} |`)
  .join("\n");

/** What each status means, for responses whose schema gives no description of its own. */
const responseDescriptions: Record<string, string> = {
  "200": "Success: the envelope with the requested data.",
  "201": "Created: the envelope with the new resource.",
  "202": "Accepted: the work goes on in the background.",
  "204": "Done; no body.",
  "400": "The request could not be read (invalid JSON or a malformed URL).",
  "401": "No valid token: missing, unknown, revoked or expired.",
  "403": "The token lacks the scope, or may not see this resource.",
  "404": "No such resource (or not one the token may see).",
  "405": "This path does not accept that method.",
  "409": "The resource's state does not allow this (the error_code says why).",
  "413": "The request body is larger than allowed.",
  "415": "The request body's Content-Type is not accepted.",
  "422": "Invalid fields: `details` lists each problem.",
  "429": "Rate limit exceeded; retry after the Retry-After delay.",
  "431": "The request's URL and headers are larger than allowed (16 KB in all).",
  "500": "Something went wrong on the service's side.",
  "503":
    "The instance is stopping, its database does not answer, or a concurrent write won; retry after Retry-After.",
};

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

Every POST accepts an \`Idempotency-Key\` header (1 to 255 characters, not all blank). The same key from the
same token within 24 hours replays the first response with \`Idempotent-Replayed: true\` and does
nothing again; the same key with another body is a 422 \`idempotency_key_reused\`. A response
that revealed a secret (a new token, a webhook signing secret) is stored sealed (AES-256-GCM)
under a key derived from the bearer token that asked, which the service keeps only as a hash: its
caller's retry replays it, and the database alone never yields the secret.

| status | error_code | meaning |
|---|---|---|
${errorTable}
`;

/** Gives every response a description (fastify's default is "Default Response"). */
function describeResponses(schema: Record<string, unknown>): void {
  const responses = schema.response as Record<string, { description?: string }> | undefined;
  for (const [status, response] of Object.entries(responses ?? {})) {
    if (response && typeof response === "object" && !response.description) {
      response.description = responseDescriptions[status] ?? `HTTP ${status}.`;
    }
  }
}

/**
 * A `billing_period` query parameter is read as text so that a wrong one gets its own 422
 * (`invalid_billing_period`); the document still offers the five periods as an enum.
 */
function enumerateBillingPeriod(schema: Record<string, unknown>): void {
  const query = schema.querystring as
    | { properties?: Record<string, { type?: unknown; enum?: unknown }> }
    | undefined;
  const period = query?.properties?.billing_period;
  if (period && period.type === "string" && period.enum === undefined) {
    period.enum = [...billingPeriods];
  }
}

/**
 * Names each operation's scope: in its security requirement, and in words in its description.
 * A route without one takes no token (health checks, Meta's webhooks): `security: []` lifts the
 * document's default bearer requirement for it.
 */
const withScope: typeof jsonSchemaTransform = (input) => {
  const result = jsonSchemaTransform(input);
  describeResponses(result.schema as Record<string, unknown>);
  enumerateBillingPeriod(result.schema as Record<string, unknown>);
  const scope = input.route.config?.scope;
  if (scope === undefined) return { ...result, schema: { ...result.schema, security: [] } };
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

type RequestBody = { required?: boolean; content?: Record<string, { schema?: unknown }> };

/**
 * A body the contract allows to be left out comes out as required `anyOf [object, null]`
 * (@fastify/swagger marks every body required; fastify validates a missing body as null).
 * The document says what a client sees: an optional body of that object.
 */
function optionalBodies(paths: unknown): void {
  for (const operations of Object.values((paths ?? {}) as Record<string, unknown>)) {
    for (const operation of Object.values((operations ?? {}) as Record<string, unknown>)) {
      const body = (operation as { requestBody?: RequestBody } | null)?.requestBody;
      for (const media of Object.values(body?.content ?? {})) {
        const anyOf = (media.schema as { anyOf?: unknown[] } | undefined)?.anyOf;
        if (!body || anyOf?.length !== 2) continue;
        const isNull = (s: unknown) => (s as { type?: unknown }).type === "null";
        const rest = anyOf.filter((s) => !isNull(s));
        if (rest.length !== 1) continue;
        media.schema = rest[0];
        body.required = false;
      }
    }
  }
}

/**
 * Bodies a route takes besides JSON through its own content-type parser, which the route's zod
 * schema cannot declare: the contact import's file streamed as the body itself.
 */
const rawBodies: Record<string, Record<string, { schema: Record<string, unknown> }>> = {
  importContacts: {
    "text/csv": {
      schema: {
        type: "string",
        description:
          "The CSV file itself, streamed; the options (duplicate_handling, default_country, mapping, delimiter, encoding) go in the query.",
      },
    },
  },
};

/**
 * Answers a route sends as text rather than JSON (fastify's generator declares every response
 * `application/json`): the media type of each operation's 200.
 */
const rawAnswers: Record<string, string> = {
  verifyWhatsappWebhook: "text/plain",
  streamEvents: "text/event-stream",
};

/**
 * Adds the raw bodies of `rawBodies` beside each operation's JSON body, and gives the answers
 * of `rawAnswers` their media type.
 */
function documentRawBodies(paths: unknown): void {
  for (const operations of Object.values((paths ?? {}) as Record<string, unknown>)) {
    for (const operation of Object.values((operations ?? {}) as Record<string, unknown>)) {
      const op = operation as {
        operationId?: string;
        requestBody?: RequestBody;
        responses?: Record<string, RequestBody>;
      } | null;
      const answer = op?.operationId ? rawAnswers[op.operationId] : undefined;
      const ok = op?.responses?.["200"];
      if (answer && ok?.content) {
        ok.content = Object.fromEntries(
          Object.values(ok.content).map((media) => [answer, media] as const),
        );
      }
      const raw = op?.operationId ? rawBodies[op.operationId] : undefined;
      if (!raw || !op?.requestBody) continue;
      op.requestBody.content = { ...op.requestBody.content, ...raw };
    }
  }
}

/** Headers the hooks add to answers, declared once and referred to by every response. */
const headerComponents = {
  "X-Request-Id": {
    description: "The request's id, also in the service's log line for it.",
    schema: { type: "string" },
  },
  "RateLimit-Limit": {
    description:
      "Requests the token (or, without a valid one, the client address) may make per window.",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the current window.",
    schema: { type: "integer" },
  },
  "RateLimit-Reset": {
    description: "Seconds until the window starts again.",
    schema: { type: "integer" },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer" },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
} as const;

const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any string of 1 to 255 characters, not all blank. The same key from the same token within 24 hours replays the first answer (with `Idempotent-Replayed: true`) and does nothing again; with another body it is a 422 `idempotency_key_reused`.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

const headerRef = (name: keyof typeof headerComponents) => ({
  $ref: `#/components/headers/${name}`,
});

/**
 * The headers of the wire contract that the route schemas cannot say: `Idempotency-Key` on every
 * POST, and on the answers `X-Request-Id`, the RateLimit-* budget (API paths), `Retry-After` on
 * 429 and 503 and `Idempotent-Replayed` on a POST's success.
 */
function documentHeaders(document: {
  paths?: unknown;
  components?: Record<string, unknown>;
}): void {
  document.components = { ...document.components, headers: headerComponents };
  for (const [path, operations] of Object.entries(
    (document.paths ?? {}) as Record<string, unknown>,
  )) {
    const budgeted = path.startsWith("/api/v1/");
    for (const [method, operation] of Object.entries(
      (operations ?? {}) as Record<string, unknown>,
    )) {
      const op = operation as {
        parameters?: unknown[];
        responses?: Record<string, { headers?: Record<string, unknown> }>;
      };
      if (method === "post") op.parameters = [...(op.parameters ?? []), idempotencyKeyParameter];
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const headers: Record<string, unknown> = { "X-Request-Id": headerRef("X-Request-Id") };
        if (budgeted) {
          for (const name of [
            "RateLimit-Limit",
            "RateLimit-Remaining",
            "RateLimit-Reset",
          ] as const) {
            headers[name] = headerRef(name);
          }
        }
        if (status === "429" || status === "503") headers["Retry-After"] = headerRef("Retry-After");
        if (method === "post" && status.startsWith("2")) {
          headers["Idempotent-Replayed"] = headerRef("Idempotent-Replayed");
        }
        response.headers = { ...response.headers, ...headers };
      }
    }
  }
}

/**
 * The contract's named schemas come out twice, as read (`X`) and as written (`XInput`); an
 * `XInput` no request uses would name a response type in generated clients. Only what the
 * paths use, directly or through other schemas, stays.
 */
const withoutUnusedInputs: typeof jsonSchemaTransformObject = (input) => {
  const document = jsonSchemaTransformObject(input) as {
    paths?: unknown;
    components?: { schemas?: Record<string, unknown> };
  };
  const schemas = document.components?.schemas;
  if (!schemas) return document as ReturnType<typeof jsonSchemaTransformObject>;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string") {
          const name = value.replace("#/components/schemas/", "");
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(value);
      }
    }
  };
  optionalBodies(document.paths);
  documentRawBodies(document.paths);
  documentHeaders(document);
  visit(document.paths);
  for (const name of Object.keys(schemas)) {
    if (name.endsWith("Input") && !used.has(name)) delete schemas[name];
  }
  return document as ReturnType<typeof jsonSchemaTransformObject>;
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
    transformObject: withoutUnusedInputs,
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    // The reference is this service's, not fastify's: no logo, no Swagger top bar.
    logo: {
      type: "image/svg+xml",
      content: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40"><text x="0" y="28" font-family="sans-serif" font-size="24">reseller</text></svg>',
      ),
    },
    theme: {
      title: "Reseller Platform API",
      css: [{ filename: "reseller.css", content: ".swagger-ui .topbar { display: none; }" }],
    },
    uiConfig: { docExpansion: "list", deepLinking: true },
  });
  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("application/json").send(app.swagger()),
  );
}
