import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";
import { type UnstorableText, unstorableTexts } from "../../contract/storable-text.js";
import { ServiceError } from "../domain/service-error.js";

type Checked = { error?: FastifySchemaValidationError[]; value?: unknown };

/** The findings as zod's validation errors, at their paths, as zod's own checks name fields. */
function asErrors(texts: UnstorableText[]): FastifySchemaValidationError[] {
  const failing = z.unknown().superRefine((_value, ctx) => {
    for (const text of texts) {
      ctx.addIssue({ code: "custom", path: text.path, message: text.message });
    }
  });
  const checked = validatorCompiler({ schema: failing, method: "*", url: "*" })(null) as Checked;
  return checked.error ?? [];
}

/** The part of a query the schema reads: parameters it does not know are ignored. */
function knownParameters(schema: unknown, query: unknown): unknown {
  if (!(schema instanceof z.ZodObject) || query === null || typeof query !== "object") return {};
  const known: Record<string, unknown> = {};
  for (const key of Object.keys(schema.shape)) {
    if (Object.hasOwn(query, key)) known[key] = (query as Record<string, unknown>)[key];
  }
  return known;
}

/**
 * The service's validator: zod's, after a check that every string of the params, query and body
 * can be stored (see contract/storable-text.ts), so such text is a 422 naming the field (a 404
 * in the path) on both engines rather than a 500 on PostgreSQL. The answer names every field's
 * problem at once, each text once.
 */
export const storableTextValidator: FastifySchemaCompiler<z.ZodType> = (route) => {
  // zod's compiler answers synchronously with { error } or { value }.
  const validate = validatorCompiler(route) as (data: unknown) => Checked;
  if (route.httpPart === "querystring") {
    // Query parameters a list does not know are ignored, whatever they hold (`?search=%00` on a
    // list without search): only what the schema keeps is checked.
    return (data) => {
      const result = validate(data);
      const texts = unstorableTexts(
        result.error ? knownParameters(route.schema, data) : result.value,
      );
      if (texts.length === 0) return result;
      return { error: oncePerText(texts, result.error ?? []) };
    };
  }
  return (data) => {
    const texts = unstorableTexts(data);
    if (texts.length === 0) return validate(data);
    // An id in the path that no row can have is an unknown id, as any other is.
    if (route.httpPart === "params") return { error: unknownId() };
    return { error: oncePerText(texts, validate(data).error ?? []) };
  };
};

const pointer = (path: (string | number)[]) => `/${path.join("/")}`;

/**
 * The unstorable-text findings merged with the schema's own, naming each text once. Where the
 * schema names the same field (a custom key it refuses as it is, an email with a NUL), ours
 * stands: it says what is wrong with the text and shows it without its bad character. Where the
 * schema judges the list holding the text (tags, each checked for storable text too), its
 * detail stands: it says which item. An unknown field is still named as one, unless its own
 * name is the text refused.
 */
function oncePerText(
  texts: UnstorableText[],
  schema: FastifySchemaValidationError[],
): FastifySchemaValidationError[] {
  const named = new Set(texts.map((text) => pointer(text.sentPath)));
  const badNames = new Set(
    texts.filter((text) => text.kind === "key").map((text) => pointer(text.sentPath)),
  );
  const judged = new Set(schema.map((error) => error.instancePath));
  const ours = asErrors(
    texts.filter((text) => {
      const item = text.sentPath.at(-1);
      return !(typeof item === "number" && judged.has(pointer(text.sentPath.slice(0, -1))));
    }),
  );
  const theirs = schema.flatMap((error): FastifySchemaValidationError[] => {
    // An unknown field is reported on its parent with the names it does not know.
    const keys = error.keyword === "unrecognized_keys" ? error.params.keys : undefined;
    if (!Array.isArray(keys)) return named.has(error.instancePath) ? [] : [error];
    const parent = error.instancePath.replace(/\/$/, "");
    const unknown = keys.filter((key) => !badNames.has(`${parent}/${String(key)}`));
    if (unknown.length === 0) return [];
    return [{ ...error, params: { ...error.params, keys: unknown } }];
  });
  return [...ours, ...theirs];
}

const unknownId = () =>
  new ServiceError("not_found", "No resource has that id: it holds a character no id has.");
