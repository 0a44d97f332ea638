/** The BODY component: its text, variables and examples; no text in an authentication template. */
import {
  type ComponentContext,
  charCount,
  isObject,
  type Json,
  jsonType,
  onlyFields,
  stringField,
} from "./field-checks.js";
import { type BodyComponent, templateLimits } from "./shapes.js";
import { checkExampleValues, checkTextVariables } from "./variables.js";

/** Checks a BODY component: answers it normalised, or undefined once its problems are reported. */
export function checkBody(ctx: ComponentContext, input: Json): BodyComponent | undefined {
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
