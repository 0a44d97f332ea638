import { checkE164 } from "./phones.js";
import { type TemplateCategoryValue, templateCategories } from "./vocabulary.js";

/**
 * The formal rules of a WhatsApp message template, checked before submission: the service
 * answers 422 with every problem, and `reseller templates lint` / `templates create` find the
 * same problems offline. Free of zod so the CLI loads it cheaply, and a pure function so every
 * problem is listed at once rather than the first one.
 *
 * Shapes follow the WhatsApp Cloud API (`type`, `format`, `text`, `example`, `buttons`); enum
 * values are accepted in any case and come back normalised (component, format and button types
 * upper case, the category lower case as the interface spells it).
 */

export const templateLimits = {
  nameMax: 512,
  headerTextMax: 60,
  headerVariablesMax: 1,
  bodyTextMax: 1024,
  footerTextMax: 60,
  buttonsMax: 10,
  quickReplyMax: 10,
  urlButtonMax: 2,
  phoneButtonMax: 1,
  copyCodeButtonMax: 1,
  otpButtonMax: 1,
  buttonTextMax: 25,
  urlMax: 2000,
  copyCodeMax: 15,
  codeExpirationMin: 1,
  codeExpirationMax: 90,
  supportedAppsMax: 5,
} as const;

export const componentTypes = ["HEADER", "BODY", "FOOTER", "BUTTONS"] as const;
export const headerFormats = ["TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION"] as const;
export const buttonTypes = ["QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE", "OTP"] as const;
export const otpTypes = ["COPY_CODE", "ONE_TAP", "ZERO_TAP"] as const;

export type ComponentType = (typeof componentTypes)[number];
export type HeaderFormat = (typeof headerFormats)[number];
export type ButtonType = (typeof buttonTypes)[number];
export type OtpType = (typeof otpTypes)[number];

export interface HeaderComponent {
  type: "HEADER";
  format: HeaderFormat;
  /** TEXT headers only. */
  text?: string;
  /** `header_text` for a TEXT header's variable; `header_handle` (a media handle or URL) for media. */
  example?: { header_text?: string[]; header_handle?: string[] };
}

export interface BodyComponent {
  type: "BODY";
  /** Absent only in an authentication template, whose body text WhatsApp supplies. */
  text?: string;
  /** One row of example values, one per variable: `{"body_text": [["Ada", "A-1042"]]}`. */
  example?: { body_text: string[][] };
  /** Authentication only: adds "For your security, do not share this code." */
  add_security_recommendation?: boolean;
}

export interface FooterComponent {
  type: "FOOTER";
  /** Absent only in an authentication template. */
  text?: string;
  /** Authentication only: adds "This code expires in N minutes." */
  code_expiration_minutes?: number;
}

export interface QuickReplyButton {
  type: "QUICK_REPLY";
  text: string;
}
export interface UrlButton {
  type: "URL";
  text: string;
  /** http(s) URL; at most one variable, `{{1}}`, at its very end. */
  url: string;
  /** The example value of the URL's variable: `["A-1042"]`. */
  example?: string[];
}
export interface PhoneNumberButton {
  type: "PHONE_NUMBER";
  text: string;
  /** E.164, e.g. `+4915123456789`. */
  phone_number: string;
}
export interface CopyCodeButton {
  type: "COPY_CODE";
  /** The example offer code (WhatsApp supplies the button label). */
  example: string;
}
export interface OtpButton {
  type: "OTP";
  otp_type: OtpType;
  text?: string;
  /** ONE_TAP and ZERO_TAP: the Android apps that receive the code. */
  supported_apps?: { package_name: string; signature_hash: string }[];
}
export type TemplateButton =
  | QuickReplyButton
  | UrlButton
  | PhoneNumberButton
  | CopyCodeButton
  | OtpButton;

export interface ButtonsComponent {
  type: "BUTTONS";
  buttons: TemplateButton[];
}

export type TemplateComponent =
  | HeaderComponent
  | BodyComponent
  | FooterComponent
  | ButtonsComponent;

/** A template's definition: what is submitted for review. */
export interface TemplateDefinition {
  name: string;
  category: TemplateCategoryValue;
  language: string;
  components: TemplateComponent[];
}

/** One broken rule: where (a dotted path into the input), which rule, and what was expected. */
export interface TemplateProblem {
  field: string;
  rule: TemplateRule;
  message: string;
}

/** Every rule the checker applies, with what it requires; the docs list these. */
export const templateRules = {
  type: "each field has the JSON type its description gives",
  required:
    "name, category, language and components are required, and so are each component's own fields",
  unknown_field: "only the documented fields are accepted (a typo would otherwise be lost)",
  name_format: "name: lowercase letters, digits and underscores, no spaces",
  name_length: `name: at most ${templateLimits.nameMax} characters`,
  category: `category: one of ${templateCategories.join(", ")}`,
  language_format: "language: a code such as en, pt_BR or fil (ll, lll or ll_RR)",
  component_type: `component type: one of ${componentTypes.join(", ")}`,
  component_count: "at most one HEADER, FOOTER and BUTTONS, exactly one BODY",
  header_format: `HEADER format: one of ${headerFormats.join(", ")}`,
  header_text_length: `TEXT header: 1 to ${templateLimits.headerTextMax} characters`,
  header_text_format: "TEXT header: one line",
  header_variables: `TEXT header: at most ${templateLimits.headerVariablesMax} variable`,
  header_media:
    "IMAGE, VIDEO and DOCUMENT headers: no text, one example media handle or URL; LOCATION: neither",
  body_length: `BODY text: 1 to ${templateLimits.bodyTextMax} characters`,
  footer_length: `FOOTER text: 1 to ${templateLimits.footerTextMax} characters`,
  footer_variables: "FOOTER text: no variables",
  variable_format: "variables are written {{1}}, {{2}}, … (no names, spaces or stray braces)",
  variable_numbering: "variables are numbered from {{1}} without gaps",
  variable_position: "text may not start or end with a variable",
  variable_adjacent: "two variables may not stand side by side",
  variable_example:
    "each variable has a non-empty example value (and no examples without variables)",
  buttons_count: `BUTTONS: 1 to ${templateLimits.buttonsMax} buttons`,
  button_type: `button type: one of ${buttonTypes.join(", ")}`,
  button_kind_count: `at most ${templateLimits.quickReplyMax} QUICK_REPLY, ${templateLimits.urlButtonMax} URL, ${templateLimits.phoneButtonMax} PHONE_NUMBER, ${templateLimits.copyCodeButtonMax} COPY_CODE and ${templateLimits.otpButtonMax} OTP button`,
  button_text_length: `button text: 1 to ${templateLimits.buttonTextMax} characters, one line`,
  button_text_variables: "button text: no variables",
  button_text_unique: "no two buttons share a text",
  quick_reply_grouping: "QUICK_REPLY buttons stand together, before or after the others",
  url_format: `URL button: an http(s) URL of at most ${templateLimits.urlMax} characters`,
  url_variable: "URL button: at most one variable, {{1}}, at the end of the URL, with an example",
  phone_number_format: "PHONE_NUMBER button: a valid number in E.164 (+ then 8 to 15 digits)",
  copy_code_example: `COPY_CODE button: an example code of 1 to ${templateLimits.copyCodeMax} characters`,
  otp_type: `OTP button: otp_type one of ${otpTypes.join(", ")}`,
  otp_supported_apps: `ONE_TAP and ZERO_TAP OTP buttons: 1 to ${templateLimits.supportedAppsMax} supported_apps, each with package_name and an 11-character signature_hash`,
  otp_button_category: "OTP buttons only in authentication templates",
  auth_header: "authentication template: no HEADER",
  auth_body: "authentication template: a BODY without text (WhatsApp supplies it)",
  auth_footer: `authentication template: a FOOTER only with code_expiration_minutes (${templateLimits.codeExpirationMin} to ${templateLimits.codeExpirationMax}), no text`,
  auth_buttons: "authentication template: exactly one button, an OTP button",
  auth_only_field:
    "add_security_recommendation and code_expiration_minutes only in authentication templates",
} as const;
export type TemplateRule = keyof typeof templateRules;

/** The outcome of a check: the normalised template, or every problem found. */
export type TemplateCheck =
  | { ok: true; template: TemplateDefinition; problems: [] }
  | { ok: false; problems: TemplateProblem[] };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Length in characters as people count them (an emoji is one), not UTF-16 units. */
export function charCount(text: string): number {
  return [...text].length;
}

function quote(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.length > 40 ? `${text.slice(0, 37)}…` : text}'`;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

class Problems {
  readonly list: TemplateProblem[] = [];
  add(field: string, rule: TemplateRule, message: string): void {
    this.list.push({ field, rule, message });
  }
  get count(): number {
    return this.list.length;
  }
}

/** Reports fields outside `allowed`; returns whether there were none. */
function onlyFields(
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
function stringField(p: Problems, field: string, value: unknown, what: string): string | undefined {
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
function enumField<const V extends readonly string[]>(
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

// ---------------------------------------------------------------------------------------------
// Variables

/** A `{{…}}` in a text: where it stands and its number when well formed. */
interface VariableToken {
  start: number;
  end: number;
  raw: string;
  number: number | null;
}

const tokenPattern = /\{\{([^{}]*)\}\}/g;

function variableTokens(text: string): VariableToken[] {
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
function checkTextVariables(p: Problems, field: string, text: string): number | null {
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
function checkExampleValues(
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

// ---------------------------------------------------------------------------------------------
// Components

interface ComponentContext {
  p: Problems;
  path: string;
  auth: boolean;
}

function checkHeader(ctx: ComponentContext, input: Json): HeaderComponent | undefined {
  const { p, path, auth } = ctx;
  const before = p.count;
  onlyFields(p, `${path}.`, input, ["type", "format", "text", "example"], "a HEADER");
  if (auth) {
    p.add(path, "auth_header", "an authentication template has no HEADER; remove it");
  }
  const format = enumField(
    p,
    `${path}.format`,
    input.format,
    headerFormats,
    "header_format",
    "format",
  );
  if (format === undefined) return undefined;
  const example = input.example;
  if (example !== undefined && !isObject(example)) {
    p.add(`${path}.example`, "type", `must be an object; got ${jsonType(example)}`);
  }
  const exampleObject = isObject(example) ? example : undefined;
  const header: HeaderComponent = { type: "HEADER", format };

  if (format === "TEXT") {
    if (exampleObject) {
      onlyFields(p, `${path}.example.`, exampleObject, ["header_text"], "a TEXT header's example");
    }
    const text = stringField(p, `${path}.text`, input.text, "a TEXT header's text");
    if (text !== undefined) {
      header.text = text;
      if (charCount(text) > templateLimits.headerTextMax) {
        p.add(
          `${path}.text`,
          "header_text_length",
          `a TEXT header is at most ${templateLimits.headerTextMax} characters; got ${charCount(text)}`,
        );
      }
      if (/[\r\n]/.test(text)) {
        p.add(
          `${path}.text`,
          "header_text_format",
          "a TEXT header is one line; remove the line breaks",
        );
      }
      const count = checkTextVariables(p, `${path}.text`, text);
      if (count !== null && count > templateLimits.headerVariablesMax) {
        p.add(
          `${path}.text`,
          "header_variables",
          `a TEXT header has at most ${templateLimits.headerVariablesMax} variable; got ${count}`,
        );
      } else if (count !== null) {
        const values = exampleObject?.header_text;
        if (count > 0 && values === undefined) {
          p.add(
            `${path}.example.header_text`,
            "variable_example",
            `the header's variable needs an example: "example": {"header_text": ["…"]}`,
          );
        } else if (values !== undefined) {
          const checked = checkExampleValues(
            p,
            `${path}.example.header_text`,
            values,
            count,
            'a list such as ["Ada"]',
          );
          if (checked && count > 0) header.example = { header_text: checked };
        }
      }
    }
    return p.count === before ? header : undefined;
  }

  if (input.text !== undefined) {
    p.add(
      `${path}.text`,
      "header_media",
      `a ${format} header has no text; remove it or use format TEXT`,
    );
  }
  if (format === "LOCATION") {
    if (example !== undefined) {
      p.add(
        `${path}.example`,
        "header_media",
        "a LOCATION header has no example; the location is sent with each message",
      );
    }
    return p.count === before ? header : undefined;
  }
  if (exampleObject) {
    onlyFields(
      p,
      `${path}.example.`,
      exampleObject,
      ["header_handle"],
      `a ${format} header's example`,
    );
  }
  const handles = exampleObject?.header_handle;
  if (
    !Array.isArray(handles) ||
    handles.length !== 1 ||
    typeof handles[0] !== "string" ||
    handles[0].trim() === ""
  ) {
    p.add(
      `${path}.example.header_handle`,
      "header_media",
      `a ${format} header needs one example media handle or URL: "example": {"header_handle": ["https://…"]}`,
    );
  } else {
    header.example = { header_handle: [handles[0]] };
  }
  return p.count === before ? header : undefined;
}

function checkBody(ctx: ComponentContext, input: Json): BodyComponent | undefined {
  const { p, path, auth } = ctx;
  const before = p.count;
  onlyFields(
    p,
    `${path}.`,
    input,
    ["type", "text", "example", "add_security_recommendation"],
    "a BODY",
  );
  if (auth) {
    if (input.text !== undefined) {
      p.add(
        `${path}.text`,
        "auth_body",
        "an authentication template's body has no free text: WhatsApp supplies '{{1}} is your verification code.'; remove text",
      );
    }
    if (input.example !== undefined) {
      p.add(
        `${path}.example`,
        "auth_body",
        "an authentication template's body takes no example; remove it",
      );
    }
    const body: BodyComponent = { type: "BODY" };
    const recommendation = input.add_security_recommendation;
    if (recommendation !== undefined) {
      if (typeof recommendation !== "boolean") {
        p.add(
          `${path}.add_security_recommendation`,
          "type",
          `must be true or false; got ${jsonType(recommendation)}`,
        );
      } else {
        body.add_security_recommendation = recommendation;
      }
    }
    return p.count === before ? body : undefined;
  }
  if (input.add_security_recommendation !== undefined) {
    p.add(
      `${path}.add_security_recommendation`,
      "auth_only_field",
      "only an authentication template's body takes add_security_recommendation",
    );
  }
  const text = stringField(p, `${path}.text`, input.text, "the body's text");
  if (text === undefined) return undefined;
  const body: BodyComponent = { type: "BODY", text };
  if (charCount(text) > templateLimits.bodyTextMax) {
    p.add(
      `${path}.text`,
      "body_length",
      `the body is at most ${templateLimits.bodyTextMax} characters; got ${charCount(text)}`,
    );
  }
  const count = checkTextVariables(p, `${path}.text`, text);
  const example = input.example;
  if (example !== undefined && !isObject(example)) {
    p.add(`${path}.example`, "type", `must be an object; got ${jsonType(example)}`);
  } else if (count !== null) {
    if (isObject(example))
      onlyFields(p, `${path}.example.`, example, ["body_text"], "a body's example");
    const rows = isObject(example) ? example.body_text : undefined;
    if (rows === undefined) {
      if (count > 0) {
        p.add(
          `${path}.example.body_text`,
          "variable_example",
          `${count === 1 ? "the body's variable needs" : `each of the body's ${count} variables needs`} an example: "example": {"body_text": [[${Array.from({ length: count }, (_, i) => `"value ${i + 1}"`).join(", ")}]]}`,
        );
      }
    } else if (!Array.isArray(rows) || rows.length !== 1 || !Array.isArray(rows[0])) {
      p.add(
        `${path}.example.body_text`,
        "variable_example",
        'must be one row of example values, e.g. [["Ada", "A-1042"]]',
      );
    } else {
      const values = checkExampleValues(
        p,
        `${path}.example.body_text.0`,
        rows[0],
        count,
        "a list of strings",
      );
      if (values && count > 0) body.example = { body_text: [values] };
    }
  }
  return p.count === before ? body : undefined;
}

function checkFooter(ctx: ComponentContext, input: Json): FooterComponent | undefined {
  const { p, path, auth } = ctx;
  const before = p.count;
  onlyFields(p, `${path}.`, input, ["type", "text", "code_expiration_minutes"], "a FOOTER");
  if (auth) {
    if (input.text !== undefined) {
      p.add(
        `${path}.text`,
        "auth_footer",
        "an authentication template's footer has no text; give code_expiration_minutes instead",
      );
    }
    const minutes = input.code_expiration_minutes;
    const { codeExpirationMin: min, codeExpirationMax: max } = templateLimits;
    if (minutes === undefined) {
      p.add(
        `${path}.code_expiration_minutes`,
        "auth_footer",
        `an authentication template's footer needs code_expiration_minutes (${min} to ${max}); or leave the footer out`,
      );
    } else if (
      typeof minutes !== "number" ||
      !Number.isInteger(minutes) ||
      minutes < min ||
      minutes > max
    ) {
      p.add(
        `${path}.code_expiration_minutes`,
        "auth_footer",
        `must be a whole number from ${min} to ${max}; got ${quote(minutes)}`,
      );
    }
    return p.count === before
      ? { type: "FOOTER", code_expiration_minutes: minutes as number }
      : undefined;
  }
  if (input.code_expiration_minutes !== undefined) {
    p.add(
      `${path}.code_expiration_minutes`,
      "auth_only_field",
      "only an authentication template's footer takes code_expiration_minutes",
    );
  }
  const text = stringField(p, `${path}.text`, input.text, "the footer's text");
  if (text === undefined) return undefined;
  if (charCount(text) > templateLimits.footerTextMax) {
    p.add(
      `${path}.text`,
      "footer_length",
      `the footer is at most ${templateLimits.footerTextMax} characters; got ${charCount(text)}`,
    );
  }
  if (/\{\{|\}\}/.test(text)) {
    p.add(`${path}.text`, "footer_variables", "the footer may not contain variables");
  }
  return p.count === before ? { type: "FOOTER", text } : undefined;
}

const buttonFields: Record<ButtonType, readonly string[]> = {
  QUICK_REPLY: ["type", "text"],
  URL: ["type", "text", "url", "example"],
  PHONE_NUMBER: ["type", "text", "phone_number"],
  COPY_CODE: ["type", "example"],
  OTP: ["type", "otp_type", "text", "supported_apps"],
};

/** Whether `phone` is E.164 and a valid number for its country (the contract's one phone rule). */
export function isE164(phone: string): boolean {
  return checkE164(phone).ok;
}

function checkButtonText(
  p: Problems,
  field: string,
  value: unknown,
  required: boolean,
): string | undefined {
  if (value === undefined && !required) return undefined;
  const text = stringField(p, field, value, "the button's text");
  if (text === undefined) return undefined;
  if (text.trim() === "" || charCount(text) > templateLimits.buttonTextMax || /[\r\n]/.test(text)) {
    p.add(
      field,
      "button_text_length",
      `button text is 1 to ${templateLimits.buttonTextMax} characters on one line; got ${charCount(text)}`,
    );
  }
  if (/\{\{|\}\}/.test(text))
    p.add(field, "button_text_variables", "button text may not contain variables");
  return text;
}

function checkUrl(
  p: Problems,
  path: string,
  input: Json,
): { url: string; example?: string[] } | undefined {
  const url = stringField(p, `${path}.url`, input.url, "the button's url");
  if (url === undefined) return undefined;
  const tokens = variableTokens(url);
  let example: string[] | undefined;
  const stray = url.replace(tokenPattern, "");
  if (tokens.some((t) => t.number === null) || stray.includes("{{") || stray.includes("}}")) {
    p.add(`${path}.url`, "url_variable", "the URL's variable is written {{1}}");
  } else if (tokens.length > 1) {
    p.add(`${path}.url`, "url_variable", `a URL has at most one variable; got ${tokens.length}`);
  } else if (tokens.length === 1) {
    const token = tokens[0] as VariableToken;
    if (token.end !== url.length) {
      p.add(
        `${path}.url`,
        "url_variable",
        "the URL's variable must stand at its very end, e.g. https://shop.example/orders/{{1}}",
      );
    } else if (token.number !== 1) {
      p.add(`${path}.url`, "url_variable", `the URL's variable is {{1}}; got ${token.raw}`);
    }
    const values = input.example;
    if (
      !Array.isArray(values) ||
      values.length !== 1 ||
      typeof values[0] !== "string" ||
      values[0].trim() === ""
    ) {
      p.add(
        `${path}.example`,
        "url_variable",
        'the URL\'s variable needs one example value: "example": ["A-1042"]',
      );
    } else {
      example = [values[0]];
    }
  } else if (input.example !== undefined) {
    p.add(
      `${path}.example`,
      "url_variable",
      "gives an example, but the URL has no variable; remove it",
    );
  }
  const concrete = url.replace(tokenPattern, example?.[0] ?? "x");
  let parsed: URL | undefined;
  try {
    parsed = new URL(concrete);
  } catch {
    parsed = undefined;
  }
  if (
    !parsed ||
    (parsed.protocol !== "https:" && parsed.protocol !== "http:") ||
    !parsed.hostname.includes(".") ||
    /\s/.test(url) ||
    url.length > templateLimits.urlMax
  ) {
    p.add(
      `${path}.url`,
      "url_format",
      `must be an http(s) URL of at most ${templateLimits.urlMax} characters, e.g. https://shop.example/sale; got ${quote(url)}`,
    );
  }
  return example ? { url, example } : { url };
}

function checkButton(p: Problems, path: string, input: unknown): TemplateButton | undefined {
  if (!isObject(input)) {
    p.add(path, "type", `a button must be an object; got ${jsonType(input)}`);
    return undefined;
  }
  const type = enumField(
    p,
    `${path}.type`,
    input.type,
    buttonTypes,
    "button_type",
    "the button's type",
  );
  if (type === undefined) return undefined;
  const before = p.count;
  onlyFields(p, `${path}.`, input, buttonFields[type], `a ${type} button`);
  switch (type) {
    case "QUICK_REPLY": {
      const text = checkButtonText(p, `${path}.text`, input.text, true);
      return p.count === before && text !== undefined ? { type, text } : undefined;
    }
    case "URL": {
      const text = checkButtonText(p, `${path}.text`, input.text, true);
      const url = checkUrl(p, path, input);
      return p.count === before && text !== undefined && url ? { type, text, ...url } : undefined;
    }
    case "PHONE_NUMBER": {
      const text = checkButtonText(p, `${path}.text`, input.text, true);
      const phone = stringField(
        p,
        `${path}.phone_number`,
        input.phone_number,
        "the button's phone_number",
      );
      if (phone !== undefined && !isE164(phone)) {
        p.add(
          `${path}.phone_number`,
          "phone_number_format",
          `must be a valid phone number in E.164 form: + then country code and number, 8 to 15 digits, e.g. +4915123456789; got ${quote(phone)}`,
        );
      }
      return p.count === before && text !== undefined && phone !== undefined
        ? { type, text, phone_number: phone }
        : undefined;
    }
    case "COPY_CODE": {
      const code = input.example;
      if (
        typeof code !== "string" ||
        code.trim() === "" ||
        charCount(code) > templateLimits.copyCodeMax
      ) {
        p.add(
          `${path}.example`,
          "copy_code_example",
          `a COPY_CODE button needs an example code of 1 to ${templateLimits.copyCodeMax} characters, e.g. "SUMMER25"`,
        );
        return undefined;
      }
      return p.count === before ? { type, example: code } : undefined;
    }
    case "OTP": {
      const otpType = enumField(
        p,
        `${path}.otp_type`,
        input.otp_type,
        otpTypes,
        "otp_type",
        "otp_type",
      );
      const text = checkButtonText(p, `${path}.text`, input.text, false);
      const button: OtpButton = { type, otp_type: otpType ?? "COPY_CODE" };
      if (text !== undefined) button.text = text;
      const apps = input.supported_apps;
      if (otpType === "ONE_TAP" || otpType === "ZERO_TAP") {
        const valid =
          Array.isArray(apps) &&
          apps.length >= 1 &&
          apps.length <= templateLimits.supportedAppsMax &&
          apps.every(
            (a) =>
              isObject(a) &&
              typeof a.package_name === "string" &&
              a.package_name.trim() !== "" &&
              typeof a.signature_hash === "string" &&
              a.signature_hash.length === 11,
          );
        if (!valid) {
          p.add(
            `${path}.supported_apps`,
            "otp_supported_apps",
            `a ${otpType} button needs supported_apps: 1 to ${templateLimits.supportedAppsMax} of {"package_name": "com.example.app", "signature_hash": "<11 characters>"}`,
          );
        } else {
          button.supported_apps = (apps as Json[]).map((a) => ({
            package_name: a.package_name as string,
            signature_hash: a.signature_hash as string,
          }));
        }
      } else if (apps !== undefined) {
        p.add(
          `${path}.supported_apps`,
          "otp_supported_apps",
          "only ONE_TAP and ZERO_TAP buttons take supported_apps",
        );
      }
      return p.count === before && otpType !== undefined ? button : undefined;
    }
  }
}

const kindLimits: Record<ButtonType, number> = {
  QUICK_REPLY: templateLimits.quickReplyMax,
  URL: templateLimits.urlButtonMax,
  PHONE_NUMBER: templateLimits.phoneButtonMax,
  COPY_CODE: templateLimits.copyCodeButtonMax,
  OTP: templateLimits.otpButtonMax,
};

function checkButtons(ctx: ComponentContext, input: Json): ButtonsComponent | undefined {
  const { p, path, auth } = ctx;
  const before = p.count;
  onlyFields(p, `${path}.`, input, ["type", "buttons"], "a BUTTONS component");
  const list = input.buttons;
  if (!Array.isArray(list)) {
    p.add(
      `${path}.buttons`,
      list === undefined ? "required" : "type",
      `a BUTTONS component needs a buttons array; got ${list === undefined ? "none" : jsonType(list)}`,
    );
    return undefined;
  }
  if (list.length === 0 || list.length > templateLimits.buttonsMax) {
    p.add(
      `${path}.buttons`,
      "buttons_count",
      `a template has 1 to ${templateLimits.buttonsMax} buttons; got ${list.length}`,
    );
  }
  const buttons: (TemplateButton | undefined)[] = list.map((b, i) =>
    checkButton(p, `${path}.buttons.${i}`, b),
  );

  // Counts per kind, reported on the first button over the limit.
  const seen: Partial<Record<ButtonType, number>> = {};
  const types = list.map((b) =>
    isObject(b) && typeof b.type === "string"
      ? buttonTypes.find((t) => t === (b.type as string).toUpperCase())
      : undefined,
  );
  types.forEach((type, i) => {
    if (!type) return;
    seen[type] = (seen[type] ?? 0) + 1;
    if (seen[type] === kindLimits[type] + 1) {
      p.add(
        `${path}.buttons.${i}`,
        "button_kind_count",
        `a template has at most ${kindLimits[type]} ${type} button${kindLimits[type] === 1 ? "" : "s"}`,
      );
    }
  });
  // Quick replies stand together: no quick reply after a group that other buttons ended.
  let groupEnded = false;
  let inGroup = false;
  for (const [i, type] of types.entries()) {
    if (type === "QUICK_REPLY") {
      if (groupEnded) {
        p.add(
          `${path}.buttons.${i}`,
          "quick_reply_grouping",
          "QUICK_REPLY buttons must stand together, all before or all after the other buttons",
        );
        break;
      }
      inGroup = true;
    } else if (type !== undefined && inGroup) {
      groupEnded = true;
      inGroup = false;
    }
  }
  const texts = new Map<string, number>();
  list.forEach((b, i) => {
    if (!isObject(b) || typeof b.text !== "string") return;
    const key = b.text.trim().toLowerCase();
    const first = texts.get(key);
    if (first !== undefined) {
      p.add(
        `${path}.buttons.${i}.text`,
        "button_text_unique",
        `repeats the text of buttons.${first} (${quote(b.text)}); each button needs its own text`,
      );
    } else {
      texts.set(key, i);
    }
  });
  if (auth) {
    if (list.length !== 1 || types[0] !== "OTP") {
      p.add(
        `${path}.buttons`,
        "auth_buttons",
        'an authentication template has exactly one button, an OTP button: {"type": "OTP", "otp_type": "COPY_CODE"}',
      );
    }
  } else {
    types.forEach((type, i) => {
      if (type === "OTP") {
        p.add(
          `${path}.buttons.${i}`,
          "otp_button_category",
          "OTP buttons belong to authentication templates only",
        );
      }
    });
  }
  if (p.count !== before || buttons.some((b) => b === undefined)) return undefined;
  return { type: "BUTTONS", buttons: buttons as TemplateButton[] };
}

// ---------------------------------------------------------------------------------------------
// The template

/** Top-level fields a template definition may carry; `draft` is the create request's flag. */
const templateFields = ["name", "category", "language", "components", "draft"] as const;

const namePattern = /^[a-z0-9_]+$/;
const languagePattern = /^[a-z]{2,3}(_[A-Z]{2})?$/;

/**
 * Checks a template definition (a parsed JSON value) against every formal rule and answers
 * either the normalised template or every problem found, each with its field and rule.
 */
export function checkTemplate(input: unknown): TemplateCheck {
  const p = new Problems();
  if (!isObject(input)) {
    p.add("(body)", "type", `a template is a JSON object; got ${jsonType(input)}`);
    return { ok: false, problems: p.list };
  }
  onlyFields(p, "", input, templateFields, "a template");
  if (input.draft !== undefined && typeof input.draft !== "boolean") {
    p.add("draft", "type", `must be true or false; got ${jsonType(input.draft)}`);
  }

  const name = stringField(p, "name", input.name, "name");
  if (name !== undefined) {
    if (!namePattern.test(name)) {
      const suggestion = name
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9_]+/g, "_")
        .replace(/^_+|_+$/g, "");
      p.add(
        "name",
        "name_format",
        `must be lowercase letters, digits and underscores, no spaces${suggestion ? ` (e.g. '${suggestion}')` : ""}; got ${quote(name)}`,
      );
    }
    if (charCount(name) > templateLimits.nameMax) {
      p.add(
        "name",
        "name_length",
        `is at most ${templateLimits.nameMax} characters; got ${charCount(name)}`,
      );
    }
  }
  const category = enumField(
    p,
    "category",
    input.category,
    templateCategories,
    "category",
    "category",
  );
  const language = stringField(p, "language", input.language, "language");
  if (language !== undefined && !languagePattern.test(language)) {
    p.add(
      "language",
      "language_format",
      `must be a language code such as en, en_US, pt_BR or fil${language.includes("-") ? ` (with an underscore: '${language.replace("-", "_")}')` : ""}; got ${quote(language)}`,
    );
  }

  const components: TemplateComponent[] = [];
  const raw = input.components;
  if (raw === undefined || raw === null) {
    p.add("components", "required", "components are required: at least a BODY");
  } else if (!Array.isArray(raw)) {
    p.add("components", "type", `must be an array of components; got ${jsonType(raw)}`);
  } else {
    // Authentication rules apply when the category says so, even in a wrong case.
    const auth = category === "authentication";
    const counted: Partial<Record<ComponentType, number>> = {};
    raw.forEach((value, i) => {
      const path = `components.${i}`;
      if (!isObject(value)) {
        p.add(path, "type", `a component must be an object; got ${jsonType(value)}`);
        return;
      }
      const type = enumField(
        p,
        `${path}.type`,
        value.type,
        componentTypes,
        "component_type",
        "the component's type",
      );
      if (type === undefined) return;
      counted[type] = (counted[type] ?? 0) + 1;
      if (counted[type] > 1) {
        p.add(
          path,
          "component_count",
          `a template has ${type === "BODY" ? "exactly" : "at most"} one ${type}; this is another`,
        );
        return;
      }
      const ctx: ComponentContext = { p, path, auth };
      const checked =
        type === "HEADER"
          ? checkHeader(ctx, value)
          : type === "BODY"
            ? checkBody(ctx, value)
            : type === "FOOTER"
              ? checkFooter(ctx, value)
              : checkButtons(ctx, value);
      if (checked) components.push(checked);
    });
    if (!counted.BODY) {
      p.add(
        "components",
        "component_count",
        'a template has exactly one BODY: {"type": "BODY", "text": "…"}',
      );
    }
    if (auth && !counted.BUTTONS) {
      p.add(
        "components",
        "auth_buttons",
        'an authentication template needs a BUTTONS component with one OTP button: {"type": "OTP", "otp_type": "COPY_CODE"}',
      );
    }
  }

  if (p.count > 0 || name === undefined || category === undefined || language === undefined) {
    return { ok: false, problems: p.list };
  }
  return { ok: true, template: { name, category, language, components }, problems: [] };
}

/** One problem as a line for people: `components.2.buttons.0.text: … [button_text_length]`. */
export function problemLine(problem: TemplateProblem): string {
  return `${problem.field}: ${problem.message} [${problem.rule}]`;
}
