/** The HEADER component: text with at most one variable, media with an example, or a location. */
import {
  type ComponentContext,
  charCount,
  enumField,
  isObject,
  type Json,
  jsonType,
  onlyFields,
  stringField,
} from "./field-checks.js";
import { type HeaderComponent, headerFormats, templateLimits } from "./shapes.js";
import { checkExampleValues, checkTextVariables } from "./variables.js";

/** Checks a HEADER component: answers it normalised, or undefined once its problems are reported. */
export function checkHeader(ctx: ComponentContext, input: Json): HeaderComponent | undefined {
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
      `${withArticle(format)} header has no text; remove it or use format TEXT`,
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
      `${withArticle(format)} header's example`,
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
      `${withArticle(format)} header needs one example media handle or URL: "example": {"header_handle": ["https://…"]}`,
    );
  } else {
    header.example = { header_handle: [handles[0]] };
  }
  return p.count === before ? header : undefined;
}

/** "an IMAGE", "a VIDEO": the media formats read as words in messages. */
function withArticle(format: string): string {
  return `${/^[AEIOU]/.test(format) ? "an" : "a"} ${format}`;
}
