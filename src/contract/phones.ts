import { Metadata } from "libphonenumber-js/core";
import {
  type CountryCode,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
} from "libphonenumber-js/max";
import maxMetadata from "libphonenumber-js/max/metadata";
import { quoted } from "./errors.js";

/**
 * Phone numbers as the contract wants them: E.164 (`+`, then 8 to 15 digits, no leading 0) and
 * valid for their country by libphonenumber's full rules (the `max` metadata, which checks the
 * digits and not only the length). The service and the CLI's `import --dry-run` both use this.
 */
export const e164Pattern = /^\+[1-9]\d{7,14}$/;

/** The expected form, quoted in every phone error. */
export const e164Hint =
  "E.164: + then the country code and number, 8 to 15 digits, e.g. +4915112345678";

/** A phone's reading; shared between the rows that hold the same cell, so never changed. */
export type PhoneResult =
  | { readonly ok: true; readonly e164: string }
  | { readonly ok: false; readonly message: string; readonly reason?: "ambiguous_phone" };

function validOrError(input: string, parsed: ReturnType<typeof parsePhoneNumberFromString>) {
  if (!parsed)
    return { ok: false as const, message: `${quoted(input)} is not a phone number (${e164Hint})` };
  if (!e164Pattern.test(parsed.number)) {
    return { ok: false as const, message: `${quoted(input)} is not a phone number (${e164Hint})` };
  }
  if (!parsed.isValid()) {
    const where = parsed.country
      ? ` for ${parsed.country}`
      : ` for country code +${parsed.countryCallingCode}`;
    return {
      ok: false as const,
      message: `${quoted(input)} is not a valid number${where} (${e164Hint})`,
    };
  }
  return { ok: true as const, e164: parsed.number };
}

/** A phone exactly as the API takes it: already E.164 and valid. */
export function checkE164(input: string): PhoneResult {
  if (!e164Pattern.test(input)) {
    return { ok: false, message: `${quoted(input)} is not in ${e164Hint}` };
  }
  const result = validOrError(input, parsePhoneNumberFromString(input));
  if (result.ok && result.e164 !== input) {
    return { ok: false, message: `${quoted(input)} is not in ${e164Hint}` };
  }
  return result;
}

/**
 * Spaces, dashes, dots, slashes and brackets people put in numbers, and the invisible marks a
 * number copied out of WhatsApp or a web page carries (direction marks, zero-width spaces, a
 * byte order mark) and typographic dashes (‐ ‑ ‒ – — ―, minus): dropped before checking.
 */
const formatting = /[\s\-./()\u2010-\u2015\u2212\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;

/** A cell Excel wrote as a formula of text, `="0151 1234567"`, so that it keeps its leading 0. */
const excelText = /^="(.*)"$/;

/** A number a spreadsheet wrote in scientific notation (`4.91511E+11`, `4,91511E+11`). */
const scientific = /^\d[.,]\d+e\+?\d+$/i;
/**
 * A whole number a program wrote as a decimal (`4915112341004.0`, as pandas does): digits only,
 * never a leading 0 or a `+` (a float has neither), so no number written by a person reads as
 * another.
 */
const decimalZero = /^([1-9]\d*)\.0$/;

/**
 * A number as a person types it with its country code (`+49 151 1234-5678`): its E.164 form once
 * the formatting is dropped. A number without `+` is refused as checkE164 does: a country is
 * never guessed. Errors quote the text as typed.
 */
export function typedE164(input: string): PhoneResult {
  const text = input.trim();
  const compact = text.replace(formatting, "");
  if (compact.startsWith("+")) {
    const checked = checkE164(compact);
    if (checked.ok) return checked;
  }
  return checkE164(text);
}

const trunkPrefixes = new Map<CountryCode, boolean>();

/** Whether numbers of this country are written nationally with a trunk prefix (0 in DE, GB, FR). */
function hasTrunkPrefix(country: CountryCode): boolean {
  let known = trunkPrefixes.get(country);
  if (known === undefined) {
    const metadata = new Metadata(maxMetadata);
    metadata.selectNumberingPlan(country);
    // The typings leave it out; the metadata has it (a number 0 where a country has none).
    const plan = metadata.numberingPlan as unknown as { nationalPrefix(): string | number };
    known = Boolean(plan.nationalPrefix());
    trunkPrefixes.set(country, known);
  }
  return known;
}

/**
 * A phone as a CSV cell may hold it: E.164, possibly with spaces or dashes; a national number
 * (or one with the international prefix, e.g. 0049…) only when `defaultCountry` says which
 * country it belongs to. A country is never guessed, and a number never silently changes
 * meaning: digits that start with the country's calling code and form a valid international
 * number are that number (spreadsheets drop the `+`: 4915112347003 with DE is +4915112347003);
 * where the country has no trunk prefix and the national reading is a different valid number
 * too (Italy: 3902831222), the cell is refused as `ambiguous_phone`.
 */
export function normalizePhone(input: string, defaultCountry?: CountryCode): PhoneResult {
  // A cell longer than any phone is read, never kept: it would only fill the memo.
  if (input.length > 40) return readPhone(input, defaultCountry);
  const key = `${defaultCountry ?? ""}\u0000${input}`;
  const known = phonesRead.get(key);
  if (known !== undefined) return known;
  const result = readPhone(input, defaultCountry);
  if (phonesRead.size >= phonesReadLimit) phonesRead.clear();
  phonesRead.set(key, result);
  return result;
}

/**
 * Cells already read, by default country and text, so the full rules (about 10 µs a number)
 * run once per distinct value: a file often names a number many times (a row per list the
 * contact is on, the same export pasted twice). Bounded, and emptied when full: a file of a
 * million different numbers keeps only the newest few.
 */
const phonesRead = new Map<string, PhoneResult>();
const phonesReadLimit = 50_000;

function readPhone(input: string, defaultCountry?: CountryCode): PhoneResult {
  const text = input.trim();
  if (text === "") return { ok: false, message: "is empty; every row needs a phone" };
  // A leading ' typed to keep a spreadsheet from reading the cell as a number (and its leading
  // 0), Excel's formula for the same (`="0151…"`), and a ".0" a program added to a whole number,
  // are no part of the phone.
  const digits = (excelText.exec(text)?.[1] ?? text).replace(/^'/, "");
  if (scientific.test(digits)) {
    return {
      ok: false,
      message: `${quoted(text)} is a number a spreadsheet wrote in scientific notation, which loses its last digits: format the column as text, type the numbers again and export the file again`,
    };
  }
  const compact = digits.replace(decimalZero, "$1").replace(formatting, "");
  if (e164Pattern.test(compact)) return validOrError(text, parsePhoneNumberFromString(compact));
  // Letters or other signs (`not a phone`, `n/a`): no country would make it a number.
  if (compact.startsWith("+") || !/^\d+$/.test(compact)) {
    return { ok: false, message: `${quoted(text)} is not a phone number (${e164Hint})` };
  }
  if (!defaultCountry) {
    return {
      ok: false,
      message: `${quoted(text)} has no country code: write it in ${e164Hint}, or import with default_country (the CLI's --default-country) to read national numbers`,
    };
  }
  if (!/^\d{3,17}$/.test(compact)) {
    return { ok: false, message: `${quoted(text)} is not a phone number (${e164Hint})` };
  }
  const national = parsePhoneNumberFromString(compact, defaultCountry);
  if (compact.startsWith(getCountryCallingCode(defaultCountry))) {
    const international = parsePhoneNumberFromString(`+${compact}`);
    if (international?.isValid() && e164Pattern.test(international.number)) {
      if (
        national?.isValid() &&
        national.number !== international.number &&
        !hasTrunkPrefix(defaultCountry)
      ) {
        return {
          ok: false,
          reason: "ambiguous_phone",
          message: `ambiguous_phone: ${quoted(text)} is ${international.formatInternational()} or ${national.formatInternational()}; write it with + and the country code`,
        };
      }
      return { ok: true, e164: international.number };
    }
  }
  return validOrError(text, national);
}

/** Why `text` is no default_country (null when it is one): the one wording of that refusal. */
export function defaultCountryProblem(text: string): string | null {
  if (countryCode(text) !== undefined) return null;
  // The one code people guess wrong: ISO 3166 names the United Kingdom GB.
  const hint = text.trim().toUpperCase() === "UK" ? " (the United Kingdom is GB)" : "";
  return `${quoted(text)} is not a two-letter country code such as DE, US or GB${hint}`;
}

/** A two-letter country code libphonenumber knows (any case), upper-cased; undefined if not. */
export function countryCode(text: string): CountryCode | undefined {
  const upper = text.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(upper) && isSupportedCountry(upper) ? (upper as CountryCode) : undefined;
}
