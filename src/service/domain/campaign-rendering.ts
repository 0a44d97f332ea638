import { ownValue } from "../../contract/own-value.js";
import { replaceVariables, variableNumbers } from "../../contract/template-rules.js";
import { parseJson } from "../db/json-text.js";
import type { ContactTable } from "../db/tables/contacts.js";

/** The contact fields a message can use. */
export interface ContactFields {
  first_name: string | null;
  last_name: string | null;
  phone: string;
  email: string | null;
  custom_fields: Record<string, unknown>;
}

/** A contact row's fields as messages read them (custom_fields stored as JSON text). */
export function contactFieldsOf(row: {
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  custom_fields: ContactTable["custom_fields"] | null;
}): ContactFields {
  return {
    phone: row.phone,
    first_name: row.first_name,
    last_name: row.last_name,
    email: row.email,
    custom_fields: row.custom_fields ? parseJson(row.custom_fields) : {},
  };
}

/** A button whose value is filled per message: a URL ending in `{{1}}`, or a COPY_CODE code. */
export interface VariableButton {
  /** The button's position among the template's buttons, from 0 (Meta's `index`). */
  index: number;
  subType: "url" | "copy_code";
  /** The template's example value (the URL's end, the code): sent when the mapping has no key. */
  example: string | null;
}

/** An IMAGE, VIDEO or DOCUMENT header: the link each message carries (null: the example is only a handle). */
export interface MediaHeader {
  format: "image" | "video" | "document";
  link: string | null;
}

/** The parts of a template filled per message: a TEXT header, the body, variable buttons, a media header. */
export interface TemplateTexts {
  header: string | null;
  body: string;
  buttons?: VariableButton[];
  media?: MediaHeader | null;
}

/** The variable_mapping key of a variable button: `button.<index>`. */
export function buttonKey(index: number): string {
  return `button.${index}`;
}

/**
 * The variable_mapping key of the header's `{{n}}` when it should differ from the body's: Meta
 * numbers the header and body apart, so `{{1}}` in each may mean different things.
 */
function headerKey(n: number): string {
  return `header.${n}`;
}

/** Every variable number the header and body use; key `n` serves both unless `header.n` is given. */
export function templateVariables(texts: TemplateTexts): number[] {
  const all = [...variableNumbers(texts.header ?? ""), ...variableNumbers(texts.body)];
  return [...new Set(all)].sort((a, b) => a - b);
}

/**
 * Every key a mapping of this template may hold: its variable numbers, `header.<n>` for the
 * header's, then `button.<index>`.
 */
export function mappingKeys(texts: TemplateTexts): string[] {
  return [
    ...templateVariables(texts).map(String),
    ...variableNumbers(texts.header ?? "").map(headerKey),
    ...(texts.buttons ?? []).map((b) => buttonKey(b.index)),
  ];
}

/** The contact field a header's `{{n}}` takes: its own `header.n`, else the shared `n`. */
function headerField(mapping: Record<string, string>, n: number): string | undefined {
  return mapping[headerKey(n)] ?? mapping[String(n)];
}

/**
 * Variables of the header and body the mapping leaves out (`{{n}}`), for the create check: the
 * contract asks a mapping to cover those.
 */
export function unmappedVariables(texts: TemplateTexts, mapping: Record<string, string>): string[] {
  const header = variableNumbers(texts.header ?? "");
  const body = variableNumbers(texts.body);
  return templateVariables(texts)
    .filter(
      (n) =>
        (body.includes(n) && mapping[String(n)] === undefined) ||
        (header.includes(n) && headerField(mapping, n) === undefined),
    )
    .map((n) => `{{${n}}}`);
}

/**
 * Variable buttons the mapping leaves out: each message carries the template's example for
 * them (the contract asks the mapping to cover only the header and body), or fails
 * `missing_variable` where the template has none.
 */
export function unmappedButtons(
  texts: TemplateTexts,
  mapping: Record<string, string>,
): VariableButton[] {
  return (texts.buttons ?? []).filter((b) => mapping[buttonKey(b.index)] === undefined);
}

function fieldValue(contact: ContactFields, field: string): string {
  if (field.startsWith("custom.")) {
    const value = ownValue(contact.custom_fields, field.slice("custom.".length));
    return value === null || value === undefined ? "" : String(value);
  }
  const value = contact[field as "first_name" | "last_name" | "phone" | "email"];
  return value ?? "";
}

/** What one message fills in: per-text values in placeholder order, button values, the media link. */
export interface MessageParameters {
  header: string[];
  body: string[];
  buttons?: (VariableButton & { value: string })[];
  media?: { format: MediaHeader["format"]; link: string };
}

/**
 * Fills `{{n}}` and variable buttons with the mapped contact fields. An empty value fails the
 * message (`missing_variable`) rather than sending "Hello ," to someone.
 */
export function renderMessage(
  texts: TemplateTexts,
  mapping: Record<string, string>,
  contact: ContactFields,
):
  | { ok: true; body: string; parameters: MessageParameters }
  | { ok: false; reason: "missing_variable"; variable: number | string } {
  // Each `{{n}}` of `text` with the contact's value of the field `fieldOf(n)` names, or the first
  // number left without one.
  const valuesOf = (text: string, fieldOf: (n: number) => string | undefined) => {
    const found = new Map<number, string>();
    for (const n of variableNumbers(text)) {
      const field = fieldOf(n);
      const value = field === undefined ? "" : fieldValue(contact, field).trim();
      if (value === "") return n;
      found.set(n, value);
    }
    return found;
  };
  const values = valuesOf(texts.body, (n) => mapping[String(n)]);
  if (typeof values === "number")
    return { ok: false, reason: "missing_variable", variable: values };
  const headerValues = valuesOf(texts.header ?? "", (n) => headerField(mapping, n));
  if (typeof headerValues === "number") {
    return { ok: false, reason: "missing_variable", variable: headerValues };
  }
  const buttons: (VariableButton & { value: string })[] = [];
  for (const button of texts.buttons ?? []) {
    const field = mapping[buttonKey(button.index)];
    const value = (
      field === undefined ? (button.example ?? "") : fieldValue(contact, field)
    ).trim();
    if (value === "") {
      return { ok: false, reason: "missing_variable", variable: buttonKey(button.index) };
    }
    buttons.push({ ...button, value });
  }
  const fill = (text: string, from: Map<number, string>) =>
    replaceVariables(text, (n, raw) => from.get(n) ?? raw);
  const body = texts.header
    ? `${fill(texts.header, headerValues)}\n\n${fill(texts.body, values)}`
    : fill(texts.body, values);
  // The operator fills each text's placeholders in the order they number them.
  const ordered = (text: string, from: Map<number, string>) =>
    variableNumbers(text).map((n) => from.get(n) ?? "");
  const media = texts.media?.link ? { format: texts.media.format, link: texts.media.link } : null;
  return {
    ok: true,
    body,
    parameters: {
      header: texts.header ? ordered(texts.header, headerValues) : [],
      body: ordered(texts.body, values),
      ...(buttons.length > 0 ? { buttons } : {}),
      ...(media ? { media } : {}),
    },
  };
}
