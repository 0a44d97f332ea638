/** The shapes of a WhatsApp message template (Cloud API names) and the limits its rules use. */
import type { TemplateCategoryValue } from "../vocabulary.js";

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
