import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { type UnstorableText, unstorableTexts } from "../../contract/storable-text.js";
import { ServiceError } from "../domain/service-error.js";

/** A zod check that fails on each unstorable text, at its path, as zod's own checks do. */
const storable = z.unknown().superRefine((value, ctx) => {
  for (const found of unstorableTexts(value)) {
    ctx.addIssue({ code: "custom", path: found.path, message: found.message });
  }
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
    // Every other field's problem too, so one answer lists them all, each text once.
    const rest = validate(data) as { error?: FastifySchemaValidationError[] };
    return { error: oncePerText(checked.error, unstorableTexts(data), rest.error ?? []) };
  };
};

const pointer = (path: (string | number)[]) => `/${path.join("/")}`;

/**
 * The unstorable-text findings (`ours`, one per `texts` entry, in order) merged with the schema's
 * own, naming each text once. Where the schema names the same field (a custom key it refuses as
 * it is), ours stands, as it shows the name without its bad character. Where the schema judges
 * the list holding the text (tags, checked as a whole), its detail stands: it says which item.
 */
function oncePerText(
  ours: FastifySchemaValidationError[],
  texts: UnstorableText[],
  schema: FastifySchemaValidationError[],
): FastifySchemaValidationError[] {
  const named = new Set(texts.map((text) => pointer(text.sentPath)));
  const judged = new Set(schema.map((error) => error.instancePath));
  const keptOurs = ours.filter((_, i) => {
    const path = texts[i]?.sentPath ?? [];
    const item = path.at(-1);
    return !(typeof item === "number" && judged.has(pointer(path.slice(0, -1))));
  });
  const keptSchema = schema.flatMap((error): FastifySchemaValidationError[] => {
    if (named.has(error.instancePath)) return [];
    // An unknown field is reported on its parent with the names it does not know.
    const keys = error.keyword === "unrecognized_keys" ? error.params.keys : undefined;
    if (!Array.isArray(keys)) return [error];
    const parent = error.instancePath.replace(/\/$/, "");
    const unknown = keys.filter((key) => !named.has(`${parent}/${String(key)}`));
    if (unknown.length === 0) return [];
    return [{ ...error, params: { ...error.params, keys: unknown } }];
  });
  return [...keptOurs, ...keptSchema];
}

const unknownId = () =>
  new ServiceError("not_found", "No resource has that id: it holds a character no id has.");
