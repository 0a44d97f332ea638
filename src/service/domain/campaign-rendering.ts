import { variableNumbers } from "../../contract/template-rules.js";

/** The contact fields a message can use. */
export interface ContactFields {
  first_name: string | null;
  last_name: string | null;
  phone: string;
  email: string | null;
  custom_fields: Record<string, unknown>;
}

/** The texts of a template that carry variables: a TEXT header and the body. */
export interface TemplateTexts {
  header: string | null;
  body: string;
}

/** Every variable number the header and body use; one mapping entry serves both. */
export function templateVariables(texts: TemplateTexts): number[] {
  const all = [...variableNumbers(texts.header ?? ""), ...variableNumbers(texts.body)];
  return [...new Set(all)].sort((a, b) => a - b);
}

/** Variables the mapping leaves out, for the create check. */
export function unmappedVariables(texts: TemplateTexts, mapping: Record<string, string>): number[] {
  return templateVariables(texts).filter((n) => mapping[String(n)] === undefined);
}

function fieldValue(contact: ContactFields, field: string): string {
  if (field.startsWith("custom.")) {
    const value = contact.custom_fields[field.slice("custom.".length)];
    return value === null || value === undefined ? "" : String(value);
  }
  const value = contact[field as "first_name" | "last_name" | "phone" | "email"];
  return value ?? "";
}

/**
 * Fills `{{n}}` with the mapped contact fields. An empty value fails the message
 * (`missing_variable`) rather than sending "Hello ," to someone.
 */
export function renderMessage(
  texts: TemplateTexts,
  mapping: Record<string, string>,
  contact: ContactFields,
):
  | { ok: true; body: string; parameters: { header: string[]; body: string[] } }
  | { ok: false; reason: "missing_variable"; variable: number } {
  const values = new Map<number, string>();
  for (const n of templateVariables(texts)) {
    const field = mapping[String(n)];
    const value = field === undefined ? "" : fieldValue(contact, field).trim();
    if (value === "") return { ok: false, reason: "missing_variable", variable: n };
    values.set(n, value);
  }
  const fill = (text: string) =>
    text.replace(/\{\{\s*(\d+)\s*\}\}/g, (m, n) => values.get(Number(n)) ?? m);
  const body = texts.header ? `${fill(texts.header)}\n\n${fill(texts.body)}` : fill(texts.body);
  // The operator fills each text's placeholders in the order they number them.
  const ordered = (text: string) => variableNumbers(text).map((n) => values.get(n) ?? "");
  return {
    ok: true,
    body,
    parameters: { header: texts.header ? ordered(texts.header) : [], body: ordered(texts.body) },
  };
}
