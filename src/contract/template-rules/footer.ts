/** The FOOTER component: plain text, or only the code expiry of an authentication template. */
import {
  type ComponentContext,
  charCount,
  type Json,
  onlyFields,
  quote,
  stringField,
} from "./field-checks.js";
import { type FooterComponent, templateLimits } from "./shapes.js";

/** Checks a FOOTER component: answers it normalised, or undefined once its problems are reported. */
export function checkFooter(ctx: ComponentContext, input: Json): FooterComponent | undefined {
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
