import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { storableCopy, unstorableTextProblem } from "../../contract/storable-text.js";
import { ServiceError } from "../domain/service-error.js";

/**
 * Strings longer than this are not searched: the only field that long is an import's base64
 * `csv`, which its own check refuses unless it is base64, and a search of 100 MB would hold the
 * event loop.
 */
const searchedLength = 1024 * 1024;

/** The path of the first string (or object key) in `value` that cannot be stored, and why. */
function firstUnstorable(
  value: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; message: string } | null {
  if (typeof value === "string") {
    if (value.length > searchedLength) return null;
    const problem = unstorableTextProblem(value);
    // Named as every detail names its field: "first_name contains …".
    const leaf = path.at(-1);
    return problem === null
      ? null
      : { path, message: leaf === undefined ? problem : `${leaf} ${problem}` };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstUnstorable(item, [...path, index]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem) {
        // The field is named as it can be shown back, the bad character as U+FFFD.
        const shown = storableCopy(key);
        return { path: [...path, shown], message: `the name '${shown}' ${keyProblem}` };
      }
      const found = firstUnstorable(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** A zod check that fails on the first unstorable text, at its path, as zod's own checks do. */
const storable = z.unknown().superRefine((value, ctx) => {
  const found = firstUnstorable(value);
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
  return (data) => {
    // zod's compiler answers synchronously with { error } or { value }.
    const checked = checkStorable(data) as { error?: FastifySchemaValidationError[] };
    if (!checked.error) return validate(data);
    // An id in the path that no row can have is an unknown id, as any other is.
    if (route.httpPart === "params") return { error: unknownId() };
    return checked;
  };
};

const unknownId = () =>
  new ServiceError("not_found", "No resource has that id: it holds a character no id has.");
