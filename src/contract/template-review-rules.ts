import type { TemplateDefinition } from "./template-rules.js";
import type { TemplateRejectionReason } from "./vocabulary.js";

/**
 * The content rules of a template review: what the sandbox operator rejects (WhatsApp's review
 * rejects or recategorises the same), so `templates lint` can say it before anything is sent.
 */

/** A piece of a template's text the sandbox reads, with where it stands. */
interface TextPart {
  field: string;
  text: string;
  /** body, header, footer or button: rules say which parts they read. */
  kind: "header" | "body" | "footer" | "button" | "url";
}

/** One documented content rule of the sandbox operator. */
export interface SandboxContentRule {
  id: string;
  reason: TemplateRejectionReason;
  /** What the rule rejects, for people (the README lists these). */
  description: string;
  /** A detail naming what fired and where, or null when the rule passes. */
  check(template: TemplateDefinition, parts: readonly TextPart[]): string | null;
}

/** Well-known URL shorteners: WhatsApp wants links that show where they lead. */
export const urlShorteners = [
  "bit.ly",
  "tinyurl.com",
  "t.co",
  "goo.gl",
  "ow.ly",
  "is.gd",
  "buff.ly",
  "rebrand.ly",
  "cutt.ly",
  "shorturl.at",
  "tiny.cc",
  "rb.gy",
  "t.ly",
  "s.id",
  "bl.ink",
  "lnkd.in",
  "shorte.st",
  "adf.ly",
] as const;

/** Words that make a message promotional; wrong in a utility or authentication template. */
export const marketingWords = [
  "discount",
  "sale",
  "% off",
  "offer",
  "offers",
  "promo",
  "promotion",
  "coupon",
  "deals",
  "best deal",
  "buy now",
  "shop now",
  "limited time",
  "free gift",
  "exclusive",
  "black friday",
  "cyber monday",
  "clearance",
  "save up to",
  "best price",
  "new arrivals",
  "flash sale",
] as const;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const shortenerPattern = new RegExp(
  `(?:^|[^a-z0-9.-])((?:[a-z0-9-]+\\.)*(?:${urlShorteners.map(escapeRegExp).join("|")}))(?=/|[^a-z0-9.-]|$)`,
  "i",
);

/**
 * A marketing word as people write it: its plural too ("coupons", "discounts"), "20%off" as
 * "20% off". Not "sales": a sales team or sales tax is no promotion.
 */
function marketingWordPattern(word: string): string {
  if (word.startsWith("%")) return `%\\s*${escapeRegExp(word.slice(1).trim())}`;
  const plural = /[a-z]$/.test(word) && !word.endsWith("s") && word !== "sale";
  return plural ? `${escapeRegExp(word)}s?` : escapeRegExp(word);
}

const marketingPattern = new RegExp(
  `(?:^|[^\\p{L}])(${marketingWords.map(marketingWordPattern).join("|")})(?=[^\\p{L}]|$)`,
  "iu",
);

/**
 * Asking people to hand over their secrets is how scams work; WhatsApp rejects it. The ask is a
 * verb aimed at the reader's own secret ("send us your PIN", "enter your password"), in one
 * clause, and not a warning ("never share your PIN"): "enter the code we sent" is how signing
 * in works, "update your password in settings" is advice.
 */
const sensitiveRequestPattern =
  /(?<!\b(?:never|not|don't|dont|do not)\s+)\b(?:send|share|reply with|text|tell|give|provide|submit|confirm|enter|type)\b(?:\s+(?:us|me|to us|back))?\s+(?:your|ur)\b[^.?!;:\n]{0,30}?\b(passwords?|pins?(?: codes?)?|cvvs?|cvcs?|card numbers?|bank details|bank account details|security codes?|social security numbers?)\b/i;

/** Every text of a template the rules read, with its field path. */
function textParts(template: TemplateDefinition): TextPart[] {
  const parts: TextPart[] = [];
  template.components.forEach((component, i) => {
    const path = `components.${i}`;
    switch (component.type) {
      case "HEADER":
        if (component.text)
          parts.push({ field: `${path}.text`, text: component.text, kind: "header" });
        break;
      case "BODY":
        if (component.text)
          parts.push({ field: `${path}.text`, text: component.text, kind: "body" });
        break;
      case "FOOTER":
        if (component.text)
          parts.push({ field: `${path}.text`, text: component.text, kind: "footer" });
        break;
      case "BUTTONS":
        component.buttons.forEach((button, j) => {
          const at = `${path}.buttons.${j}`;
          if ("text" in button && button.text) {
            parts.push({ field: `${at}.text`, text: button.text, kind: "button" });
          }
          if (button.type === "URL") {
            parts.push({ field: `${at}.url`, text: button.url, kind: "url" });
          }
        });
        break;
    }
  });
  return parts;
}

/** The sandbox's content rules, in the order they are applied; the first that fires decides. */
export const sandboxContentRules: readonly SandboxContentRule[] = [
  {
    id: "url_shortener",
    reason: "INVALID_FORMAT",
    description: `a link through a URL shortener (${urlShorteners.join(", ")}) in the body, a button's URL or any other text`,
    check: (_template, parts) => {
      for (const part of parts) {
        const match = shortenerPattern.exec(part.text);
        if (match?.[1]) {
          return `${part.field}: '${match[1]}' is a URL shortener; WhatsApp wants full links to your own domain`;
        }
      }
      return null;
    },
  },
  {
    id: "sensitive_data_request",
    reason: "SCAM",
    description:
      "text asking people to send, share, give, provide, submit, confirm, enter or type their password, PIN, CVV, card number, bank details or security code",
    check: (_template, parts) => {
      for (const part of parts) {
        if (part.kind === "url") continue;
        const match = sensitiveRequestPattern.exec(part.text);
        if (match) {
          return `${part.field}: asks for '${match[1]}'; templates may not ask people for secrets`;
        }
      }
      return null;
    },
  },
  {
    id: "marketing_wording",
    reason: "INCORRECT_CATEGORY",
    description: `marketing wording (${marketingWords.join(", ")}; plurals too) or a COPY_CODE offer button in a utility or authentication template`,
    check: (template, parts) => {
      if (template.category === "marketing") return null;
      for (const part of parts) {
        if (part.kind === "url") continue;
        const match = marketingPattern.exec(part.text);
        if (match?.[1]) {
          return `${part.field}: '${match[1]}' is marketing wording, which makes this a marketing template, not ${template.category}`;
        }
      }
      for (const [i, component] of template.components.entries()) {
        if (component.type !== "BUTTONS") continue;
        const j = component.buttons.findIndex((b) => b.type === "COPY_CODE");
        if (j >= 0) {
          return `components.${i}.buttons.${j}: a COPY_CODE offer button makes this a marketing template, not ${template.category}`;
        }
      }
      return null;
    },
  },
];

/** A review rule that fires, with the reason it rejects for and the detail naming where. */
export interface ReviewFinding {
  rule: string;
  reason: TemplateRejectionReason;
  detail: string;
}

/** Every review rule that fires for a template, in the order the sandbox applies them. */
export function reviewFindings(template: TemplateDefinition): ReviewFinding[] {
  const parts = textParts(template);
  return sandboxContentRules.flatMap((rule) => {
    const detail = rule.check(template, parts);
    return detail === null ? [] : [{ rule: rule.id, reason: rule.reason, detail }];
  });
}
