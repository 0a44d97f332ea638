/** The BUTTONS component: each button by its type, the counts per kind and their order. */
import { checkE164 } from "../phones.js";
import {
  type ComponentContext,
  charCount,
  enumField,
  isObject,
  type Json,
  jsonType,
  onlyFields,
  type Problems,
  quote,
  stringField,
} from "./field-checks.js";
import {
  type ButtonsComponent,
  type ButtonType,
  buttonTypes,
  type OtpButton,
  otpTypes,
  type TemplateButton,
  templateLimits,
} from "./shapes.js";
import { tokenPattern, type VariableToken, variableTokens } from "./variables.js";

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

/** Checks a BUTTONS component: answers it normalised, or undefined once its problems are reported. */
export function checkButtons(ctx: ComponentContext, input: Json): ButtonsComponent | undefined {
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
