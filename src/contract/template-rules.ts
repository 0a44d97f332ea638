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
import { checkBody } from "./template-rules/body.js";
import { checkButtons } from "./template-rules/buttons.js";
import {
  type ComponentContext,
  charCount,
  enumField,
  isObject,
  jsonType,
  onlyFields,
  Problems,
  quote,
  stringField,
} from "./template-rules/field-checks.js";
import { checkFooter } from "./template-rules/footer.js";
import { checkHeader } from "./template-rules/header.js";
import type { TemplateCheck, TemplateProblem } from "./template-rules/rule-catalogue.js";
import {
  type ComponentType,
  componentTypes,
  type TemplateComponent,
  templateLimits,
} from "./template-rules/shapes.js";
import { templateCategories } from "./vocabulary.js";

export * from "./template-rules/rule-catalogue.js";
export * from "./template-rules/shapes.js";
export { replaceVariables, variableNumbers } from "./template-rules/variables.js";

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
