/**
 * The rules of a contact's fields, free of zod, so the API's schemas, the service's CSV import
 * and the CLI's `contacts import --dry-run` check exactly the same things with the same words.
 */

import { unstorableTextProblem } from "./storable-text.js";
import { contactVariableFields } from "./vocabulary.js";

export const contactLimits = {
  nameLength: 100,
  emailLength: 320,
  tagLength: 64,
  tagsPerContact: 50,
  customFieldKeyLength: 64,
  customFieldValueLength: 1000,
  customFieldsPerContact: 50,
  sourceLength: 200,
} as const;

/**
 * Invisible format characters (Unicode's Cf) but the zero-width non-joiner and joiner (U+200C,
 * U+200D), which Persian and Indic words need between letters: the bidi overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), the zero-width space, the soft hyphen, a BOM. With an
 * override, `\u202Emoc.live@a.test`, an address at a.test, reads `tset.a@evil.com` on a page.
 */
const invisibleCharacter = /(?![\u200C\u200D])\p{Cf}/u;

/** An address's shape: a local part of any UTF-8 letters, a domain of letters or punycode. */
const addressShape =
  /^(?:[^\s\p{Cc}@".(),:;<>[\]\\]+\.)*[^\s\p{Cc}@".(),:;<>[\]\\]+@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+(?:\p{L}{2,}|[Xx][Nn]--[A-Za-z0-9-]+)$/u;

/**
 * An address such as anna@example.com, internationalised ones included (émilie.10@…,
 * josé@exämple.de or its punycode), with none of the invisible characters above anywhere.
 */
export const emailPattern = new RegExp(
  `^(?!.*${invisibleCharacter.source})${addressShape.source.slice(1)}`,
  "u",
);

/**
 * The first of those invisible characters in a text, as `U+200B`, or null. No address holds one,
 * and one pasted along with it cannot be seen: the refusal names it.
 */
export function invisibleCharacterIn(text: string): string | null {
  const found = invisibleCharacter.exec(text)?.[0];
  if (found === undefined) return null;
  return `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The refusal of an email holding an invisible character, for a field. */
export function invisibleInEmail(field: string, character: string): string {
  return `${field} holds an invisible character (${character}) that no address has: type the address again`;
}

/** Separators of tags inside one CSV cell; a tag itself may not contain them. */
export const tagSeparators = /[,;|]/;

/**
 * Keys of custom fields are the client's own words ("arbitrary keys": `Größe`, `Plan Name`), so
 * only what would make a key unusable is refused: a control character, a space at either end
 * (two keys that look alike), and `__proto__`, which an object built by assignment (a CSV row,
 * the CLI's --field) would take for its prototype.
 */
const customFieldKeyProblems = /^\s|\s$|\p{Cc}/u;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const controlCharacters = /[\u0000-\u001f\u007f]/;

/** Why a tag is refused, or null when it is fine (after trimming). */
export function tagProblem(tag: string): string | null {
  if (tag === "") return "a tag must not be empty";
  if (tag.length > contactLimits.tagLength) {
    return `tag '${tag.slice(0, 20)}…' is longer than ${contactLimits.tagLength} characters`;
  }
  if (tagSeparators.test(tag)) return `tag '${tag}' must not contain , ; or |`;
  // Judged here too, as a list's rule names its items: the body's check leaves a tag to it.
  const unstorable = unstorableTextProblem(tag);
  if (unstorable !== null) return `tag '${tag}' ${unstorable}`;
  if (controlCharacters.test(tag)) return `tag '${tag}' must not contain control characters`;
  return null;
}

/**
 * A tag's name as a tag filter or a campaign audience compares it: `VIP`, `vip` and `Vip` are
 * one, and so are `ÉTÉ` and `été`. Computed here and stored beside the name, because neither
 * engine folds case alike (SQLite folds ASCII letters only; PostgreSQL as its locale says).
 */
export function foldedTagName(name: string): string {
  // Upper case first folds what lower case alone keeps apart: `straße` and `STRASSE` are one.
  return name.toUpperCase().toLowerCase();
}

/**
 * Trimmed tags without repeats, in their first order and spelling: `VIP` after `vip` is a repeat,
 * since a tag filter and a campaign audience take them for one tag.
 */
export function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const tag of tags) {
    const trimmed = tag.trim();
    const folded = foldedTagName(trimmed);
    if (!seen.has(folded)) seen.set(folded, trimmed);
  }
  return [...seen.values()];
}

/** Why a custom field key is refused, or null. */
export function customKeyProblem(key: string): string | null {
  if (key.length === 0 || key.length > contactLimits.customFieldKeyLength) {
    return `custom field keys are 1 to ${contactLimits.customFieldKeyLength} characters`;
  }
  if (customFieldKeyProblems.test(key)) {
    return `custom field key ${JSON.stringify(key)} must not begin or end with a space or hold a control character`;
  }
  if (key === "__proto__") return "custom field key '__proto__' is reserved; choose another name";
  return null;
}

/**
 * Whether a campaign variable may be filled from this contact field: a named field, or
 * `custom.<key>` with any key a contact may hold (`custom.Plan Name`, `custom.Größe`).
 */
export function isVariableField(value: string): boolean {
  if ((contactVariableFields as readonly string[]).includes(value)) return true;
  return value.startsWith("custom.") && customKeyProblem(value.slice("custom.".length)) === null;
}

/** How far ahead of the service's clock a consent time may be: the sender's clock may run fast. */
const consentClockSkewMs = 5 * 60 * 1000;

/** The earliest consent time taken: WhatsApp marketing is younger; year 0 is a typo. */
const earliestConsent = Date.UTC(1970, 0, 1);

/**
 * Why a consent time (as normaliseTimestamp writes it) cannot be one, or null: in the future
 * (beyond the senders' clock skew), or before 1970.
 */
export function consentTimeProblem(time: string, now: Date): string | null {
  const at = Date.parse(time);
  if (at > now.getTime() + consentClockSkewMs) return `${time} is in the future`;
  if (at < earliestConsent) return `${time} is before 1970: no record of consent is that old`;
  return null;
}
