/** Variables (`{{1}}`, `{{2}}`, …) in a template's texts, and their example values. */
import { jsonType, type Problems, quote } from "./field-checks.js";

/** A `{{…}}` in a text: where it stands and its number when well formed. */
export interface VariableToken {
  start: number;
  end: number;
  raw: string;
  number: number | null;
}

/** Every `{{…}}` of a text, well formed or not, so that the malformed ones can be named. */
export const tokenPattern = /\{\{([^{}]*)\}\}/g;

/** The `{{…}}` of `text` in order, each with its number when it is a variable (`{{1}}`…`{{999}}`). */
export function variableTokens(text: string): VariableToken[] {
  return [...text.matchAll(tokenPattern)].map((m) => {
    const inner = m[1] ?? "";
    return {
      start: m.index,
      end: m.index + m[0].length,
      raw: m[0],
      number: /^[1-9]\d{0,2}$/.test(inner) ? Number(inner) : null,
    };
  });
}

/**
 * `text` with each variable replaced by what `fill` answers for its number (and its `{{n}}`);
 * a malformed `{{…}}` such as `{{ 1 }}`, which the checks refuse, stays as written.
 */
export function replaceVariables(text: string, fill: (n: number, raw: string) => string): string {
  let out = "";
  let from = 0;
  for (const token of variableTokens(text)) {
    if (token.number === null) continue;
    out += text.slice(from, token.start) + fill(token.number, token.raw);
    from = token.end;
  }
  return out + text.slice(from);
}

/** The variables of `text` as `{{n}}` placeholders (well-formed ones only), for other modules. */
export function variableNumbers(text: string): number[] {
  const numbers = variableTokens(text).flatMap((t) => (t.number === null ? [] : [t.number]));
  return [...new Set(numbers)].sort((a, b) => a - b);
}

/**
 * Checks the variables of a header or body text: format, numbering from 1 without gaps, not at
 * the start or end, not side by side. Answers how many distinct variables the text has (what
 * the examples must match), or null when they are too broken to count.
 */
export function checkTextVariables(p: Problems, field: string, text: string): number | null {
  const tokens = variableTokens(text);
  let broken = false;
  for (const token of tokens) {
    if (token.number === null) {
      p.add(
        field,
        "variable_format",
        `${quote(token.raw)} is not a variable; write {{1}}, {{2}}, …`,
      );
      broken = true;
    }
  }
  let rest = text;
  for (const token of [...tokens].reverse())
    rest = rest.slice(0, token.start) + rest.slice(token.end);
  if (rest.includes("{{") || rest.includes("}}")) {
    p.add(
      field,
      "variable_format",
      "has unmatched '{{' or '}}'; variables are written {{1}}, {{2}}, …",
    );
    broken = true;
  }
  const good = tokens.filter((t) => t.number !== null);
  if (good.length === 0) return broken ? null : 0;

  const numbers = [...new Set(good.map((t) => t.number as number))].sort((a, b) => a - b);
  const expected = numbers.map((_, i) => i + 1);
  if (numbers.some((n, i) => n !== expected[i])) {
    p.add(
      field,
      "variable_numbering",
      `variables must be numbered from {{1}} without gaps; found ${numbers.map((n) => `{{${n}}}`).join(", ")}`,
    );
    broken = true;
  }
  const first = tokens[0];
  const last = tokens.at(-1);
  if (first && text.slice(0, first.start).trim() === "") {
    p.add(
      field,
      "variable_position",
      `may not start with a variable (${first.raw}); put some words before it`,
    );
  }
  if (last && text.slice(last.end).trim() === "") {
    p.add(
      field,
      "variable_position",
      `may not end with a variable (${last.raw}); put some words or punctuation after it`,
    );
  }
  for (let i = 1; i < tokens.length; i++) {
    const before = tokens[i - 1] as VariableToken;
    const after = tokens[i] as VariableToken;
    if (text.slice(before.end, after.start).trim() === "") {
      p.add(
        field,
        "variable_adjacent",
        `${before.raw} and ${after.raw} stand side by side; put words between them`,
      );
    }
  }
  return broken ? null : numbers.length;
}

/** Checks a list of example values against the variable count. */
export function checkExampleValues(
  p: Problems,
  field: string,
  values: unknown,
  count: number,
  shape: string,
): string[] | undefined {
  if (!Array.isArray(values)) {
    p.add(field, "variable_example", `must be ${shape}; got ${jsonType(values)}`);
    return undefined;
  }
  if (values.length !== count) {
    p.add(
      field,
      "variable_example",
      count === 0
        ? "gives examples, but the text has no variables; remove them"
        : `needs exactly ${count} example value${count === 1 ? "" : "s"}, one per variable; got ${values.length}`,
    );
  }
  values.forEach((value, i) => {
    if (typeof value !== "string" || value.trim() === "") {
      p.add(
        `${field}.${i}`,
        "variable_example",
        "must be a non-empty string (an example value of the variable)",
      );
    }
  });
  return values.filter((v): v is string => typeof v === "string");
}
