import type { FastifyError, FastifyRequest } from "fastify";
import type { ZodFastifySchemaValidationError } from "fastify-type-provider-zod";
import type { ErrorDetail } from "../../contract/envelope.js";
import { quoted } from "../../contract/errors.js";

/** What a body that is not a JSON object is told, wherever it is read. */
export const needsJsonObject =
  "the request needs a JSON object as its body (Content-Type: application/json)";

/** A request refused by its route's zod schemas, as fastify-type-provider-zod raises it. */
type SchemaRefusal = Omit<FastifyError, "validation"> & {
  validation: ZodFastifySchemaValidationError[];
};

function fieldOf(context: string | undefined, instancePath: string): string {
  const path = instancePath.replace(/^\//, "").replaceAll("/", ".");
  if (path !== "") return path;
  return context === "body" ? "(body)" : (context ?? "(request)");
}

/** The value a validation error points at, or undefined where the request has none. */
function valueAt(request: FastifyRequest, context: string | undefined, instancePath: string) {
  const parts = instancePath.split("/").slice(1);
  let value: unknown =
    context === "body" ? request.body : context === "querystring" ? request.query : request.params;
  for (const part of parts) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * Whether the value a validation error points at is missing from the request (rather than there
 * with the wrong type): the two get different messages.
 */
function isAbsent(request: FastifyRequest, context: string | undefined, instancePath: string) {
  if (instancePath.split("/").length < 2) return false;
  return valueAt(request, context, instancePath) === undefined;
}

const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
  null: "null",
};

const bounds: Record<string, string> = {
  ">=": "at least",
  ">": "more than",
  "<=": "at most",
  "<": "less than",
};

/**
 * zod's own wording, for a field whose schema gives none of its own ("Invalid input: expected
 * array, received string", "Too small: expected string to have >=1 characters"), said as the
 * service's messages say it: "events must be a list; got a string", "cursor must not be empty".
 * Any other message is kept.
 */
function plainZodMessage(instancePath: string, message: string, value: unknown): string {
  const leaf = instancePath.split("/").at(-1) || "the body";
  const wrongType = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (wrongType) {
    const [, expected = "", received = ""] = wrongType;
    return `${leaf} must be ${typeNames[expected] ?? expected}; got ${typeNames[received] ?? received}`;
  }
  const length =
    /^Too (?:small|big): expected (string|array) to have (>=|>|<=|<)(\d+) (?:characters|items)$/.exec(
      message,
    );
  if (length) {
    const [, kind = "", bound = "", limit = ""] = length;
    if (kind === "string" && bound === ">=" && limit === "1") return `${leaf} must not be empty`;
    const unit = kind === "string" ? "characters" : "items";
    return `${leaf} must have ${bounds[bound] ?? bound} ${limit} ${unit}`;
  }
  const size = /^Too (?:small|big): expected (number|int) to be (>=|>|<=|<)(\S+)$/.exec(message);
  if (size) {
    const [, kind = "", bound = "", limit = ""] = size;
    return `${leaf} must be ${typeNames[kind] ?? kind}, ${bounds[bound] ?? bound} ${limit}`;
  }
  const option = /^Invalid option: expected one of (.+)$/.exec(message);
  if (option) {
    const choices = (option[1] ?? "").split("|").map((choice) => choice.replace(/^"|"$/g, ""));
    const got = typeof value === "string" ? `; got ${quoted(value)}` : "";
    return `${leaf} must be one of ${choices.join(", ")}${got}`;
  }
  return message;
}

/**
 * How many times a query parameter that takes one value was given (`?search=a&search=b` parses
 * to an array), or 0: zod's "expected string, received array" would not say what went wrong.
 */
function repeatedTimes(request: FastifyRequest, context: string | undefined, instancePath: string) {
  if (context !== "querystring" || !/^\/[^/]+$/.test(instancePath)) return 0;
  const value = (request.query as Record<string, unknown> | undefined)?.[instancePath.slice(1)];
  return Array.isArray(value) ? value.length : 0;
}

/**
 * A missing field's message: "name is required: a string" from the type's "name must be a
 * string", so a client learns both that the field is missing and what it takes.
 */
function requiredMessage(instancePath: string, message: string | undefined): string {
  const leaf = instancePath.split("/").at(-1) ?? "";
  const expected = message?.startsWith(`${leaf} must be `)
    ? message.slice(`${leaf} must be `.length)
    : null;
  if (message?.startsWith(`${leaf} is required`)) return message;
  return expected ? `${leaf} is required: ${expected}` : `${leaf} is required`;
}

/**
 * The route's body rules' problems (config.bodyRules) at fields its schema did not refuse: a
 * field the schema refused, or one inside it, is told once, as the schema said it.
 */
function bodyRuleProblems(
  request: FastifyRequest,
  context: string | undefined,
  refused: readonly ErrorDetail[],
): ErrorDetail[] {
  const rules = request.routeOptions.config.bodyRules;
  if (context !== "body" || !rules) return [];
  const told = (field: string) =>
    refused.some((r) => field === r.field || field.startsWith(`${r.field}.`));
  return rules(request.body).filter((problem) => !told(problem.field));
}

/**
 * The details of a 422 for a request its schemas refused: each field named once, in the
 * service's own wording, with the route's body rules' problems beside the schema's.
 */
export function validationDetails(error: SchemaRefusal, request: FastifyRequest): ErrorDetail[] {
  const found = error.validation.flatMap((v): ErrorDetail[] => {
    // An unknown field is reported on its parent object; name each unknown field instead.
    const keys = v.keyword === "unrecognized_keys" ? v.params.keys : undefined;
    if (Array.isArray(keys)) {
      const parent = v.instancePath.replace(/^\/$/, "");
      return keys.map((key) => ({
        field: fieldOf(error.validationContext, `${parent}/${String(key)}`),
        message: "is not a field this endpoint accepts",
      }));
    }
    const field = fieldOf(error.validationContext, v.instancePath);
    // No body, or a body that is not an object: zod's "expected object, received null" says
    // less than what the endpoint wants.
    const noObject = field === "(body)" && /expected object/.test(v.message ?? "");
    const missing =
      v.keyword === "invalid_type" && isAbsent(request, error.validationContext, v.instancePath);
    const repeated = repeatedTimes(request, error.validationContext, v.instancePath);
    return [
      {
        field,
        message: noObject
          ? needsJsonObject
          : missing
            ? requiredMessage(v.instancePath, v.message)
            : repeated > 0
              ? `is given ${repeated} times in the query; give it once`
              : plainZodMessage(
                  v.instancePath,
                  v.message ?? "is invalid",
                  valueAt(request, error.validationContext, v.instancePath),
                ),
      },
    ];
  });
  found.push(...bodyRuleProblems(request, error.validationContext, found));
  // A value can break two checks that say the same (page=1e20: not a safe integer, over the
  // maximum): each problem is named once.
  const seen = new Set<string>();
  const details = found.filter((d) => {
    const key = `${d.field}\0${d.message}`;
    return seen.has(key) ? false : Boolean(seen.add(key));
  });
  return details;
}
