/** The names of the rules a template is checked against, and what each requires. */
import { templateCategories } from "../vocabulary.js";
import {
  buttonTypes,
  componentTypes,
  headerFormats,
  otpTypes,
  type TemplateDefinition,
  templateLimits,
} from "./shapes.js";

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
