import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { firstUnstorableText } from "../../contract/storable-text.js";
import { ServiceError } from "../domain/service-error.js";

/** A zod check that fails on the first unstorable text, at its path, as zod's own checks do. */
const storable = z.unknown().superRefine((value, ctx) => {
  const found = firstUnstorableText(value);
  if (found) ctx.addIssue({ code: "custom", path: found.path, message: found.message });
});
const checkStorable = validatorCompiler({ schema: storable, method: "*", url: "*" });

/**
 * The service's validator: zod's, after a check that every string of the params, query and body
 * can be stored (see contract/storable-text.ts), so such text is a 422 naming the field (a 404
 * in the path) on both engines rather than a 500 on PostgreSQL.
 */
export const storableTextValidator: FastifySchemaCompiler<z.ZodType> = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart === "querystring") {
    // Query parameters a list does not know are ignored, whatever they hold (`?search=%00` on a
    // list without search): only what the schema keeps is checked.
    return (data) => {
      const result = validate(data) as { error?: FastifySchemaValidationError[]; value?: unknown };
      if (result.error) return result;
      const checked = checkStorable(result.value) as { error?: FastifySchemaValidationError[] };
      return checked.error ? checked : result;
    };
  }
  return (data) => {
    // zod's compiler answers synchronously with { error } or { value }.
    const checked = checkStorable(data) as { error?: FastifySchemaValidationError[] };
    if (!checked.error) return validate(data);
    // An id in the path that no row can have is an unknown id, as any other is.
    if (route.httpPart === "params") return { error: unknownId() };
    // Every other field's problem too, so one answer lists them all (the text's own field once).
    const rest = validate(data) as { error?: FastifySchemaValidationError[] };
    const named = new Set(checked.error.map((e) => e.instancePath));
    return {
      error: [...checked.error, ...(rest.error ?? []).filter((e) => !named.has(e.instancePath))],
    };
  };
};

const unknownId = () =>
  new ServiceError("not_found", "No resource has that id: it holds a character no id has.");
