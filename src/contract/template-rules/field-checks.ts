/** The checks every part of a template shares: JSON types, required and unknown fields. */
import type { TemplateProblem, TemplateRule } from "./rule-catalogue.js";

export type Json = Record<string, unknown>;

/** Whether a JSON value is an object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Length in characters as people count them (an emoji is one), not UTF-16 units. */
export function charCount(text: string): number {
  return [...text].length;
}

/** A value quoted for a message, cut to 40 characters. */
export function quote(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.length > 40 ? `${text.slice(0, 37)}…` : text}'`;
}

/** How a JSON value's type is named in a message: `an array`, `a number`, `null`. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The problems found so far, in the order found. */
export class Problems {
  readonly list: TemplateProblem[] = [];
  add(field: string, rule: TemplateRule, message: string): void {
    this.list.push({ field, rule, message });
  }
  get count(): number {
    return this.list.length;
  }
}

/** Reports fields outside `allowed`; returns whether there were none. */
export function onlyFields(
  p: Problems,
  path: string,
  value: Json,
  allowed: readonly string[],
  what: string,
) {
  let clean = true;
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      p.add(
        `${path}${key}`,
        "unknown_field",
        `is not a field of ${what}; its fields are ${allowed.join(", ")}`,
      );
      clean = false;
    }
  }
  return clean;
}

/** A required string field; reports it missing or mistyped and answers undefined then. */
export function stringField(
  p: Problems,
  field: string,
  value: unknown,
  what: string,
): string | undefined {
  if (value === undefined || value === null || value === "") {
    p.add(field, "required", `${what} is required`);
    return undefined;
  }
  if (typeof value !== "string") {
    p.add(field, "type", `${what} must be a string; got ${jsonType(value)}`);
    return undefined;
  }
  return value;
}

/** An enum value in any case; answers the canonical spelling, or undefined after reporting. */
export function enumField<const V extends readonly string[]>(
  p: Problems,
  field: string,
  value: unknown,
  values: V,
  rule: TemplateRule,
  what: string,
): V[number] | undefined {
  const text = stringField(p, field, value, what);
  if (text === undefined) return undefined;
  const found = values.find((v) => v.toLowerCase() === text.trim().toLowerCase());
  if (found === undefined) {
    p.add(field, rule, `${what} must be one of ${values.join(", ")}; got ${quote(text)}`);
  }
  return found;
}

/** Where a component is checked: the problems so far, its path, and whether the template is for authentication. */
export interface ComponentContext {
  p: Problems;
  path: string;
  auth: boolean;
}
