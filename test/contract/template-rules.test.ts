import { describe, expect, it } from "vitest";
import {
  checkTemplate,
  replaceVariables,
  type TemplateRule,
  templateRules,
} from "../../src/contract/template-rules.js";

type Json = Record<string, unknown>;

const body = (
  text = "Hi {{1}}, your order {{2}} has shipped.",
  values: unknown = ["Ada", "A-1042"],
) => ({
  type: "BODY",
  text,
  example: { body_text: [values] },
});
const plainBody = (text = "Your order has shipped.") => ({ type: "BODY", text });
const buttons = (...list: Json[]) => ({ type: "BUTTONS", buttons: list });
const reply = (text: string) => ({ type: "QUICK_REPLY", text });
/** A URL button; `example` "none" leaves the example out. */
const url = (
  text = "Track order",
  link = "https://shop.example/orders/{{1}}",
  example: unknown = ["A-1042"],
) => ({
  type: "URL",
  text,
  url: link,
  ...(example === "none" ? {} : { example }),
});
const phone = (number = "+4915123456789", text = "Call us") => ({
  type: "PHONE_NUMBER",
  text,
  phone_number: number,
});
const header = (text: string, values?: string[]) => ({
  type: "HEADER",
  format: "TEXT",
  text,
  ...(values ? { example: { header_text: values } } : {}),
});
const template = (components: unknown[], fields: Json = {}): Json => ({
  name: "order_update",
  category: "utility",
  language: "en_US",
  components,
  ...fields,
});
const marketing = (components: unknown[]) =>
  template(components, { category: "marketing", name: "summer_sale" });
const auth = (components: unknown[], fields: Json = {}) =>
  template(components, { category: "authentication", name: "login_code", ...fields });
const otp = (fields: Json = {}) => buttons({ type: "OTP", otp_type: "COPY_CODE", ...fields });

interface Case {
  rule: TemplateRule;
  valid: Json[];
  invalid: { input: unknown; field: string }[];
}

/** For every rule: inputs that pass it, and inputs that break it at a named field. */
const cases: Case[] = [
  {
    rule: "type",
    valid: [template([body()])],
    invalid: [
      { input: "not a template", field: "(body)" },
      { input: template([body()], { name: 5 }), field: "name" },
      { input: template("BODY" as unknown as unknown[]), field: "components" },
      { input: template(["BODY"]), field: "components.0" },
      { input: template([body()], { draft: "yes" }), field: "draft" },
    ],
  },
  {
    rule: "required",
    valid: [template([plainBody()])],
    invalid: [
      { input: { category: "utility", language: "en", components: [plainBody()] }, field: "name" },
      { input: template([plainBody()], { language: "" }), field: "language" },
      { input: { name: "x", category: "utility", language: "en" }, field: "components" },
      { input: template([{ type: "BODY" }]), field: "components.0.text" },
      { input: template([plainBody(), { type: "BUTTONS" }]), field: "components.1.buttons" },
    ],
  },
  {
    rule: "unknown_field",
    valid: [template([plainBody()], { draft: true })],
    invalid: [
      { input: template([plainBody()], { colour: "red" }), field: "colour" },
      { input: template([{ type: "BODY", txt: "Hello there." }]), field: "components.0.txt" },
      {
        input: template([plainBody(), buttons({ ...reply("Yes"), url: "https://x.example" })]),
        field: "components.1.buttons.0.url",
      },
    ],
  },
  {
    rule: "name_format",
    valid: [template([plainBody()], { name: "order_update_2" })],
    invalid: [
      { input: template([plainBody()], { name: "Order Update" }), field: "name" },
      { input: template([plainBody()], { name: "order-update" }), field: "name" },
    ],
  },
  {
    rule: "name_length",
    valid: [template([plainBody()], { name: "a".repeat(512) })],
    invalid: [{ input: template([plainBody()], { name: "a".repeat(513) }), field: "name" }],
  },
  {
    rule: "category",
    valid: [
      template([plainBody()], { category: "MARKETING" }),
      template([plainBody()], { category: "utility" }),
    ],
    invalid: [{ input: template([plainBody()], { category: "promotional" }), field: "category" }],
  },
  {
    rule: "language_format",
    valid: [
      template([plainBody()], { language: "en" }),
      template([plainBody()], { language: "pt_BR" }),
      template([plainBody()], { language: "fil" }),
    ],
    invalid: [
      { input: template([plainBody()], { language: "en-US" }), field: "language" },
      { input: template([plainBody()], { language: "English" }), field: "language" },
    ],
  },
  {
    rule: "component_type",
    valid: [template([{ type: "body", text: "Lower-case types are fine." }])],
    invalid: [{ input: template([plainBody(), { type: "CAROUSEL" }]), field: "components.1.type" }],
  },
  {
    rule: "component_count",
    valid: [
      template([
        header("Your order"),
        plainBody(),
        { type: "FOOTER", text: "Acme Shop" },
        buttons(reply("Thanks")),
      ]),
    ],
    invalid: [
      { input: template([plainBody(), plainBody("Again.")]), field: "components.1" },
      { input: template([header("One"), header("Two"), plainBody()]), field: "components.1" },
      { input: template([header("Only a header")]), field: "components" },
    ],
  },
  {
    rule: "header_format",
    valid: [template([{ type: "HEADER", format: "location" }, plainBody()])],
    invalid: [
      {
        input: template([{ type: "HEADER", format: "GIF" }, plainBody()]),
        field: "components.0.format",
      },
    ],
  },
  {
    rule: "header_text_length",
    valid: [template([header("h".repeat(60)), plainBody()])],
    invalid: [
      { input: template([header("h".repeat(61)), plainBody()]), field: "components.0.text" },
    ],
  },
  {
    rule: "header_text_format",
    valid: [template([header("One line"), plainBody()])],
    invalid: [{ input: template([header("Two\nlines"), plainBody()]), field: "components.0.text" }],
  },
  {
    rule: "header_variables",
    valid: [template([header("Order {{1}} update", ["A-1042"]), plainBody()])],
    invalid: [
      {
        input: template([header("Hi {{1}} and {{2}}!", ["a", "b"]), plainBody()]),
        field: "components.0.text",
      },
    ],
  },
  {
    rule: "header_media",
    valid: [
      template([
        {
          type: "HEADER",
          format: "IMAGE",
          example: { header_handle: ["https://cdn.example/p.jpg"] },
        },
        plainBody(),
      ]),
      template([
        { type: "HEADER", format: "DOCUMENT", example: { header_handle: ["4::aW1hZ2U="] } },
        plainBody(),
      ]),
      template([{ type: "HEADER", format: "LOCATION" }, plainBody()]),
    ],
    invalid: [
      {
        input: template([{ type: "HEADER", format: "VIDEO" }, plainBody()]),
        field: "components.0.example.header_handle",
      },
      {
        input: template([
          { type: "HEADER", format: "IMAGE", text: "Hi", example: { header_handle: ["h"] } },
          plainBody(),
        ]),
        field: "components.0.text",
      },
      {
        input: template([
          { type: "HEADER", format: "LOCATION", example: { header_handle: ["h"] } },
          plainBody(),
        ]),
        field: "components.0.example",
      },
    ],
  },
  {
    rule: "body_length",
    valid: [template([plainBody(`${"b".repeat(1023)}.`)])],
    invalid: [{ input: template([plainBody("b".repeat(1025))]), field: "components.0.text" }],
  },
  {
    rule: "footer_length",
    valid: [template([plainBody(), { type: "FOOTER", text: "f".repeat(60) }])],
    invalid: [
      {
        input: template([plainBody(), { type: "FOOTER", text: "f".repeat(61) }]),
        field: "components.1.text",
      },
    ],
  },
  {
    rule: "footer_variables",
    valid: [template([plainBody(), { type: "FOOTER", text: "Reply STOP to opt out" }])],
    invalid: [
      {
        input: template([plainBody(), { type: "FOOTER", text: "Hi {{1}} there" }]),
        field: "components.1.text",
      },
    ],
  },
  {
    rule: "variable_format",
    valid: [template([body("Hi {{1}}, welcome.", ["Ada"])])],
    invalid: [
      { input: template([plainBody("Hi {{name}}, welcome.")]), field: "components.0.text" },
      { input: template([plainBody("Hi {{ 1 }}, welcome.")]), field: "components.0.text" },
      { input: template([plainBody("Hi {{1}, welcome.")]), field: "components.0.text" },
    ],
  },
  {
    rule: "variable_numbering",
    valid: [template([body("Hi {{1}}, order {{2}} for {{1}}.", ["Ada", "A-1"])])],
    invalid: [
      {
        input: template([body("Hi {{1}}, order {{3}} shipped.", ["a", "b"])]),
        field: "components.0.text",
      },
      { input: template([body("Hi {{2}}, welcome.", ["a"])]), field: "components.0.text" },
    ],
  },
  {
    rule: "variable_position",
    valid: [template([body("Your code is {{1}}.", ["123"])])],
    invalid: [
      { input: template([body("{{1}} is your code.", ["123"])]), field: "components.0.text" },
      { input: template([body("Your code is {{1}}  ", ["123"])]), field: "components.0.text" },
      { input: template([header("Order {{1}}", ["1"]), plainBody()]), field: "components.0.text" },
    ],
  },
  {
    rule: "variable_adjacent",
    valid: [template([body("Hi {{1}} and {{2}}, welcome.", ["a", "b"])])],
    invalid: [
      {
        input: template([body("Hi {{1}} {{2}}, welcome.", ["a", "b"])]),
        field: "components.0.text",
      },
      {
        input: template([body("Hi {{1}}{{2}}, welcome.", ["a", "b"])]),
        field: "components.0.text",
      },
    ],
  },
  {
    rule: "variable_example",
    valid: [template([body()]), template([plainBody()])],
    invalid: [
      {
        input: template([plainBody("Hi {{1}}, welcome.")]),
        field: "components.0.example.body_text",
      },
      {
        input: template([body("Hi {{1}} and {{2}}, welcome.", ["a"])]),
        field: "components.0.example.body_text.0",
      },
      {
        input: template([body("Hi {{1}}, welcome.", [""])]),
        field: "components.0.example.body_text.0.0",
      },
      {
        input: template([body("No variables here.", ["extra"])]),
        field: "components.0.example.body_text.0",
      },
      {
        input: template([header("Order {{1}} update"), plainBody()]),
        field: "components.0.example.header_text",
      },
    ],
  },
  {
    rule: "buttons_count",
    valid: [
      template([
        plainBody(),
        buttons(...Array.from({ length: 10 }, (_, i) => reply(`Option ${i + 1}`))),
      ]),
    ],
    invalid: [
      { input: template([plainBody(), buttons()]), field: "components.1.buttons" },
      {
        input: marketing([
          plainBody(),
          buttons(...Array.from({ length: 9 }, (_, i) => reply(`Option ${i + 1}`)), url(), phone()),
        ]),
        field: "components.1.buttons",
      },
    ],
  },
  {
    rule: "button_type",
    valid: [template([plainBody(), buttons({ type: "quick_reply", text: "Yes" })])],
    invalid: [
      {
        input: template([plainBody(), buttons({ type: "CALL", text: "Call" })]),
        field: "components.1.buttons.0.type",
      },
    ],
  },
  {
    rule: "button_kind_count",
    valid: [
      marketing([
        plainBody(),
        buttons(url("Shop"), url("Track"), phone(), { type: "COPY_CODE", example: "SUMMER25" }),
      ]),
    ],
    invalid: [
      {
        input: template([plainBody(), buttons(url("One"), url("Two"), url("Three"))]),
        field: "components.1.buttons.2",
      },
      {
        input: template([plainBody(), buttons(phone(), phone("+14155550123", "Call US"))]),
        field: "components.1.buttons.1",
      },
      {
        input: marketing([
          plainBody(),
          buttons({ type: "COPY_CODE", example: "A" }, { type: "COPY_CODE", example: "B" }),
        ]),
        field: "components.1.buttons.1",
      },
      {
        input: template([
          plainBody(),
          buttons(...Array.from({ length: 11 }, (_, i) => reply(`Option ${i + 1}`))),
        ]),
        field: "components.1.buttons.10",
      },
    ],
  },
  {
    rule: "button_text_length",
    valid: [template([plainBody(), buttons(reply("y".repeat(25)))])],
    invalid: [
      {
        input: template([plainBody(), buttons(reply("y".repeat(26)))]),
        field: "components.1.buttons.0.text",
      },
      {
        input: template([plainBody(), buttons(reply("   "))]),
        field: "components.1.buttons.0.text",
      },
    ],
  },
  {
    rule: "button_text_variables",
    valid: [template([plainBody(), buttons(url("Track order"))])],
    invalid: [
      {
        input: template([plainBody(), buttons(reply("Track {{1}}"))]),
        field: "components.1.buttons.0.text",
      },
    ],
  },
  {
    rule: "button_text_unique",
    valid: [template([plainBody(), buttons(reply("Yes"), reply("No"))])],
    invalid: [
      {
        input: template([plainBody(), buttons(reply("Yes"), reply("yes"))]),
        field: "components.1.buttons.1.text",
      },
    ],
  },
  {
    rule: "quick_reply_grouping",
    valid: [
      template([plainBody(), buttons(reply("Yes"), reply("No"), url())]),
      template([plainBody(), buttons(url(), reply("Yes"), reply("No"))]),
    ],
    invalid: [
      {
        input: template([plainBody(), buttons(reply("Yes"), url(), reply("No"))]),
        field: "components.1.buttons.2",
      },
    ],
  },
  {
    rule: "url_format",
    valid: [template([plainBody(), buttons(url("Shop", "http://shop.example/sale", "none"))])],
    invalid: [
      {
        input: template([plainBody(), buttons(url("Shop", "ftp://shop.example/sale", "none"))]),
        field: "components.1.buttons.0.url",
      },
      {
        input: template([plainBody(), buttons(url("Shop", "shop.example/sale", "none"))]),
        field: "components.1.buttons.0.url",
      },
      {
        input: template([
          plainBody(),
          buttons(url("Shop", `https://shop.example/${"x".repeat(2000)}`, "none")),
        ]),
        field: "components.1.buttons.0.url",
      },
    ],
  },
  {
    rule: "url_variable",
    valid: [template([plainBody(), buttons(url())])],
    invalid: [
      {
        input: template([plainBody(), buttons(url("Track", "https://shop.example/{{1}}/track"))]),
        field: "components.1.buttons.0.url",
      },
      {
        input: template([plainBody(), buttons(url("Track", "https://shop.example/{{1}}/{{2}}"))]),
        field: "components.1.buttons.0.url",
      },
      {
        input: template([
          plainBody(),
          buttons(url("Track", "https://shop.example/o/{{1}}", "none")),
        ]),
        field: "components.1.buttons.0.example",
      },
      {
        input: template([plainBody(), buttons(url("Track", "https://shop.example/o/{{2}}"))]),
        field: "components.1.buttons.0.url",
      },
      {
        input: template([plainBody(), buttons(url("Shop", "https://shop.example/sale", ["x"]))]),
        field: "components.1.buttons.0.example",
      },
    ],
  },
  {
    rule: "phone_number_format",
    valid: [template([plainBody(), buttons(phone("+14155550123"))])],
    invalid: [
      {
        input: template([plainBody(), buttons(phone("015123456789"))]),
        field: "components.1.buttons.0.phone_number",
      },
      {
        input: template([plainBody(), buttons(phone("+12"))]),
        field: "components.1.buttons.0.phone_number",
      },
    ],
  },
  {
    rule: "copy_code_example",
    valid: [marketing([plainBody(), buttons({ type: "COPY_CODE", example: "SUMMER25" })])],
    invalid: [
      {
        input: marketing([plainBody(), buttons({ type: "COPY_CODE", example: "X".repeat(16) })]),
        field: "components.1.buttons.0.example",
      },
      {
        input: marketing([plainBody(), buttons({ type: "COPY_CODE" })]),
        field: "components.1.buttons.0.example",
      },
    ],
  },
  {
    rule: "otp_type",
    valid: [auth([{ type: "BODY" }, otp({ otp_type: "copy_code" })])],
    invalid: [
      {
        input: auth([{ type: "BODY" }, otp({ otp_type: "SMS" })]),
        field: "components.1.buttons.0.otp_type",
      },
    ],
  },
  {
    rule: "otp_supported_apps",
    valid: [
      auth([
        { type: "BODY" },
        otp({
          otp_type: "ONE_TAP",
          supported_apps: [{ package_name: "com.example.app", signature_hash: "K8a/AINcGX7" }],
        }),
      ]),
    ],
    invalid: [
      {
        input: auth([{ type: "BODY" }, otp({ otp_type: "ONE_TAP" })]),
        field: "components.1.buttons.0.supported_apps",
      },
      {
        input: auth([
          { type: "BODY" },
          otp({ supported_apps: [{ package_name: "a", signature_hash: "K8a/AINcGX7" }] }),
        ]),
        field: "components.1.buttons.0.supported_apps",
      },
    ],
  },
  {
    rule: "otp_button_category",
    valid: [auth([{ type: "BODY" }, otp()])],
    invalid: [{ input: template([plainBody(), otp()]), field: "components.1.buttons.0" }],
  },
  {
    rule: "auth_header",
    valid: [auth([{ type: "BODY", add_security_recommendation: true }, otp()])],
    invalid: [
      { input: auth([header("Your code"), { type: "BODY" }, otp()]), field: "components.0" },
    ],
  },
  {
    rule: "auth_body",
    valid: [auth([{ type: "BODY" }, otp()])],
    invalid: [
      { input: auth([plainBody("Your code is ready."), otp()]), field: "components.0.text" },
      {
        input: auth([{ type: "BODY", example: { body_text: [["1"]] } }, otp()]),
        field: "components.0.example",
      },
    ],
  },
  {
    rule: "auth_footer",
    valid: [auth([{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 10 }, otp()])],
    invalid: [
      {
        input: auth([{ type: "BODY" }, { type: "FOOTER", text: "Expires soon" }, otp()]),
        field: "components.1.text",
      },
      {
        input: auth([{ type: "BODY" }, { type: "FOOTER", code_expiration_minutes: 91 }, otp()]),
        field: "components.1.code_expiration_minutes",
      },
    ],
  },
  {
    rule: "auth_buttons",
    valid: [auth([{ type: "BODY" }, otp()])],
    invalid: [
      { input: auth([{ type: "BODY" }]), field: "components" },
      { input: auth([{ type: "BODY" }, buttons(reply("Yes"))]), field: "components.1.buttons" },
      {
        input: auth([
          { type: "BODY" },
          buttons({ type: "OTP", otp_type: "COPY_CODE" }, reply("Help")),
        ]),
        field: "components.1.buttons",
      },
    ],
  },
  {
    rule: "auth_only_field",
    valid: [auth([{ type: "BODY", add_security_recommendation: false }, otp()])],
    invalid: [
      {
        input: template([{ ...plainBody(), add_security_recommendation: true }]),
        field: "components.0.add_security_recommendation",
      },
      {
        input: template([plainBody(), { type: "FOOTER", code_expiration_minutes: 5 }]),
        field: "components.1.code_expiration_minutes",
      },
    ],
  },
];

describe("template rules", () => {
  it("has cases for every rule", () => {
    expect(cases.map((c) => c.rule).sort()).toEqual(Object.keys(templateRules).sort());
  });

  describe.each(cases)("$rule", ({ rule, valid, invalid }) => {
    it.each(valid.map((input, i) => ({ i, input })))("accepts valid case $i", ({ input }) => {
      const check = checkTemplate(input);
      expect(check.problems).toEqual([]);
      expect(check.ok).toBe(true);
    });

    it.each(invalid.map((c, i) => ({ i, ...c })))(
      "refuses invalid case $i at $field",
      ({ input, field }) => {
        const check = checkTemplate(input);
        expect(check.ok).toBe(false);
        expect(check.problems).toContainEqual(expect.objectContaining({ field, rule }));
      },
    );
  });

  it("lists every problem at once rather than the first", () => {
    const check = checkTemplate({
      name: "Bad Name",
      category: "promo",
      language: "en-US",
      components: [
        { type: "BODY", text: "{{1}} hello" },
        { type: "FOOTER", text: "x".repeat(70) },
        { type: "BUTTONS", buttons: [{ type: "QUICK_REPLY", text: "z".repeat(30) }] },
      ],
    });
    const rules = check.problems.map((p) => p.rule);
    expect(rules).toEqual(
      expect.arrayContaining([
        "name_format",
        "category",
        "language_format",
        "variable_position",
        "variable_example",
        "footer_length",
        "button_text_length",
      ]),
    );
    expect(check.problems.find((p) => p.rule === "button_text_length")).toEqual({
      field: "components.2.buttons.0.text",
      rule: "button_text_length",
      message: "button text is 1 to 25 characters on one line; got 30",
    });
  });

  it("names a media header as it reads: an IMAGE header, a VIDEO header", () => {
    const messages = ["IMAGE", "VIDEO"].map(
      (format) =>
        checkTemplate(template([{ type: "HEADER", format }, plainBody()])).problems[0]?.message,
    );
    expect(messages[0]).toMatch(/^an IMAGE header needs one example/);
    expect(messages[1]).toMatch(/^a VIDEO header needs one example/);
  });

  it("normalises enum spellings and keeps only known fields", () => {
    const check = checkTemplate({
      name: "order_update",
      category: "UTILITY",
      language: "en_US",
      components: [
        {
          type: "header",
          format: "text",
          text: "Order {{1}} update",
          example: { header_text: ["A-1"] },
        },
        { type: "Body", text: "Hi {{1}}, it shipped.", example: { body_text: [["Ada"]] } },
        {
          type: "buttons",
          buttons: [
            { type: "url", text: "Track", url: "https://x.example/{{1}}", example: ["A-1"] },
          ],
        },
      ],
    });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.template).toEqual({
      name: "order_update",
      category: "utility",
      language: "en_US",
      components: [
        {
          type: "HEADER",
          format: "TEXT",
          text: "Order {{1}} update",
          example: { header_text: ["A-1"] },
        },
        { type: "BODY", text: "Hi {{1}}, it shipped.", example: { body_text: [["Ada"]] } },
        {
          type: "BUTTONS",
          buttons: [
            { type: "URL", text: "Track", url: "https://x.example/{{1}}", example: ["A-1"] },
          ],
        },
      ],
    });
  });

  it("counts characters as people do: an emoji is one", () => {
    const check = checkTemplate(template([plainBody(), buttons(reply(`${"🎉".repeat(25)}`))]));
    expect(check.problems).toEqual([]);
  });
});

describe("filling a text's variables", () => {
  it("fills exactly what the checks take as a variable, and leaves the rest as written", () => {
    const text = "Hi {{1}}, {{ 1 }} is {{2}} not {{02}} or {{x}}; {{3}} stays";
    const filled = replaceVariables(text, (n, raw) => (n === 3 ? raw : `<${n}>`));
    expect(filled).toBe("Hi <1>, {{ 1 }} is <2> not {{02}} or {{x}}; {{3}} stays");
    expect(checkTemplate(template([body("Hi {{ 1 }}, welcome.", [])])).problems).toContainEqual(
      expect.objectContaining({ rule: "variable_format" }),
    );
  });
});
