import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

/**
 * Checks responses against the OpenAPI document the service serves: finds the operation by
 * method and path template, picks the response by status (an undocumented status is a failure),
 * and validates the JSON body against its schema, `$ref`s to components resolved. Every API test
 * goes through it (test-app.ts `request()`), so a response that drifts from the document fails.
 */

// ajv-formats is CommonJS with a `default` export; under NodeNext the import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface OpenApiParameter {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  parameters?: OpenApiParameter[];
  /** `[{ bearer: [scope] }]`: the scope the operation needs (none for any valid token). */
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** One documented endpoint: method, path template (`/api/v1/workspaces/{id}`) and operation. */
export interface Endpoint {
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/** What the checker needs of a response: what `app.inject()` and `fetch` both can give. */
export interface ObservedResponse {
  method: string;
  url: string;
  statusCode: number;
  contentType: string | undefined;
  body: string;
}

export class ConformanceError extends Error {
  override name = "ConformanceError";
}

const httpMethods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
/** Routes the document deliberately leaves out (hidden or not part of the API). */
const undocumentedPublic = [/^\/docs(\/|$)/, /^\/api\/v1\/openapi\.json$/];
const documentId = "urn:reseller:openapi";
/** Statuses of a body refused before routing: not JSON, too large, or not a JSON media type. */
const unreadableBody = [400, 413, 415];

/** Every operation of the document, in document order. */
export function endpointsOf(document: OpenApiDocument): Endpoint[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

/** A JSON pointer into the document, escaped for use as a URI fragment. */
function pointer(...segments: string[]): string {
  return `#/${segments
    .map((s) => encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1")))
    .join("/")}`;
}

/** A deep copy without `$id`/`$schema` (the generator puts fragment ids on each component). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "$id" && key !== "$schema")
      .map(([key, v]) => [key, withoutIds(v)]),
  );
}

interface Template {
  path: string;
  pattern: RegExp;
  literals: number;
  operations: Record<string, OpenApiOperation>;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((e) => {
      const extra =
        e.keyword === "additionalProperties"
          ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
          : e.keyword === "enum"
            ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
            : "";
      return `  ${e.instancePath || "(root)"} ${e.message ?? e.keyword}${extra}`;
    })
    .join("\n");
}

function clip(text: string, max = 600): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

/** A checker for one document; validators are compiled on first use and kept. */
export class ConformanceChecker {
  readonly endpoints: Endpoint[];
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    this.endpoints = endpointsOf(document);
    // strict off: the document's own keywords (openapi, paths, info…) sit beside the schemas.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(withoutIds(document) as object, documentId);
    this.templates = Object.entries(document.paths).map(([path, operations]) => {
      const parts = path.split("/");
      // As fastify routes: a parameter may be empty (`/workspaces//contacts`, `/tokens/`).
      const source = parts
        .map((part) =>
          /^\{[^}]+\}$/.test(part) ? "[^/]*" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        )
        .join("/");
      return {
        path,
        pattern: new RegExp(`^${source}$`),
        literals: parts.filter((p) => p !== "" && !p.startsWith("{")).length,
        operations,
      };
    });
  }

  /** The documented operation a request reaches, as fastify routes it (static segments win). */
  find(
    method: string,
    url: string,
  ): { template?: Template; operation?: OpenApiOperation; allowed: string[] } {
    const path = url.split("?")[0] ?? "/";
    const matching = this.templates
      .filter((t) => t.pattern.test(path))
      .sort((a, b) => b.literals - a.literals);
    const lower = method.toLowerCase();
    const withMethod = matching.find((t) => t.operations[lower]);
    return {
      template: withMethod ?? matching[0],
      operation: withMethod?.operations[lower],
      allowed: [...new Set(matching.flatMap((t) => Object.keys(t.operations)))],
    };
  }

  private validator(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${documentId}${ref}` });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  private validateJson(what: string, ref: string, response: ObservedResponse): void {
    if (!/^application\/json\b/i.test(response.contentType ?? "")) {
      throw new ConformanceError(
        `${what}, but its content-type is ${response.contentType ?? "missing"}, not application/json.\nbody: ${clip(response.body)}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(response.body);
    } catch {
      throw new ConformanceError(
        `${what}, but the body is not JSON.\nbody: ${clip(response.body)}`,
      );
    }
    const validate = this.validator(ref);
    if (!validate(json)) {
      throw new ConformanceError(
        `${what}, which does not match its documented schema:\n${describeErrors(validate.errors)}\nbody: ${clip(response.body)}`,
      );
    }
  }

  /** Throws a ConformanceError naming the operation, status and first errors on a mismatch. */
  check(response: ObservedResponse): void {
    const method = response.method.toUpperCase();
    const path = response.url.split("?")[0] ?? "/";
    if (undocumentedPublic.some((p) => p.test(path))) return;
    const { template, operation, allowed } = this.find(method, path);
    const status = String(response.statusCode);
    if (!template || !operation) {
      // No operation: fastify's not-found handler answers 404, or 405 for a known path (404 is
      // fine there too when a parameter is empty: /workspaces//tokens); a body it cannot read
      // (400, 413, 415) is refused before that.
      const expected = template ? 405 : 404;
      const what = `${method} ${path} (${template ? `documented for ${allowed.join(", ").toUpperCase()} only` : "no documented path"}) answered ${status}`;
      if (method === "HEAD" && template && allowed.includes("get")) return;
      if (![expected, 404, ...unreadableBody].includes(response.statusCode)) {
        throw new ConformanceError(
          `${what}; expected ${expected} in the error envelope.\nbody: ${clip(response.body)}`,
        );
      }
      this.validateJson(what, pointer("components", "schemas", "ErrorBody"), response);
      return;
    }
    const name = `${method} ${template.path}${operation.operationId ? ` (${operation.operationId})` : ""}`;
    const documented = operation.responses[status] ?? operation.responses.default;
    if (!documented) {
      throw new ConformanceError(
        `${name} answered ${status}, a status its OpenAPI operation does not document (documented: ${Object.keys(operation.responses).join(", ")}).\nbody: ${clip(response.body)}`,
      );
    }
    if (method === "HEAD") return;
    const key = operation.responses[status] ? status : "default";
    const media = documented.content?.["application/json"];
    if (!documented.content) {
      if (response.body !== "") {
        throw new ConformanceError(
          `${name} answered ${status} with a body, but the document says it has none.\nbody: ${clip(response.body)}`,
        );
      }
      return;
    }
    if (!media?.schema) {
      throw new ConformanceError(
        `${name} documents ${status} without an application/json schema (${Object.keys(documented.content).join(", ")}).`,
      );
    }
    this.validateJson(
      `${name} answered ${status}`,
      pointer(
        "paths",
        template.path,
        method.toLowerCase(),
        "responses",
        key,
        "content",
        "application/json",
        "schema",
      ),
      response,
    );
  }
}

const checkers = new Map<string, ConformanceChecker>();

/** The checker of a document; one per distinct document, shared by every app that serves it. */
export function conformanceChecker(document: OpenApiDocument): ConformanceChecker {
  const key = JSON.stringify(document);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new ConformanceChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}
