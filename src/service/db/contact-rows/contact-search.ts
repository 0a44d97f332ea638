/**
 * Contact search: the terms a contact is indexed by and the terms a search looks for, the same on
 * both engines (db/contact-rows/ stores them in each engine's search index and writes a search
 * in its query syntax).
 *
 * Every word the user types must start a word of the name or email, the whole email address,
 * or the phone's digits. Each indexed word carries its workspace's id as a prefix
 * (`ws01jd…anna`), so a search is a prefix query on the workspace's own terms: it never leaves
 * its workspace and needs no filter over a million-entry list of the workspace's rows, which
 * keeps counting and paging matches cheap at a million contacts.
 *
 * User text never reaches either engine's query syntax: each word is reduced to its letters and
 * digits and written as a quoted prefix term, so quotes, `*`, `-`, `AND`, `NEAR(`, `&`, `!` and
 * the like are searched literally and can never make a query error.
 */

import { getCountries, getCountryCallingCode } from "libphonenumber-js/max";

const separators = /[^\p{L}\p{N}]+/gu;

/**
 * Letters that are not a base letter plus an accent, so FTS5's `remove_diacritics` keeps them:
 * folded by hand, in the index and in searches alike, so `orsted` finds "Ørsted".
 */
const folds: Record<string, string> = {
  ø: "o",
  ß: "ss",
  ł: "l",
  æ: "ae",
  œ: "oe",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
  ħ: "h",
  ŧ: "t",
  ŀ: "l",
  ŋ: "n",
};
const foldable = /[øßłæœđðþıħŧŀŋ]/g;

/** Lower case, with the letters above folded to their plain forms. */
export function foldLetters(text: string): string {
  return text.toLowerCase().replace(foldable, (letter) => folds[letter] ?? letter);
}

/**
 * A term with the accents of its letters removed (`müller` → `muller`), as FTS5's
 * `remove_diacritics` does on SQLite: PostgreSQL's terms are written and searched through this,
 * since no tokenizer touches them there.
 */
export function foldDiacritics(term: string): string {
  return term
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC");
}

let callingCodes: Set<string> | null = null;

/**
 * The national significant number of an E.164 number (digits only): E.164 country codes are a
 * prefix-free set, so the one code a number starts with is found by its first 1 to 3 digits.
 */
function nationalDigits(digits: string): string | null {
  callingCodes ??= new Set(getCountries().map((country) => getCountryCallingCode(country)));
  for (let length = 1; length <= 3; length++) {
    if (callingCodes.has(digits.slice(0, length))) return digits.slice(length);
  }
  return null;
}

function reversed(text: string): string {
  let out = "";
  for (let i = text.length - 1; i >= 0; i--) out += text[i];
  return out;
}
/** Runs of letters or of digits: `schmidt123` is indexed as `schmidt` and `123`. */
const runs = /\p{L}+|\p{N}+/gu;

/** Letters and digits only: one FTS5 token under the unicode61 tokenizer. */
function compact(text: string): string {
  return text.replace(separators, "");
}

function words(text: string): string[] {
  return text.match(runs) ?? [];
}

/**
 * The prefix every indexed word of the workspace carries. Words are indexed in runs of letters
 * or digits, so that `schmidt` is one term however many `schmidt123`s the emails hold: a prefix
 * query then reads a few terms, not thousands.
 */
export function workspaceToken(workspaceId: string): string {
  return compact(workspaceId).toLowerCase();
}

/**
 * The prefix of whole values written without their separators (an email address, `Anna-Lena`),
 * found when a search word has separators too; a separate prefix, so these terms never widen a
 * search for a plain word.
 */
function joinedToken(workspaceId: string): string {
  return `j${workspaceToken(workspaceId)}`;
}

/** The prefix of a phone's digits written backwards: a prefix search on them finds last digits. */
function suffixToken(workspaceId: string): string {
  return `r${workspaceToken(workspaceId)}`;
}

/** The prefix of a phone's national significant number (`15112345678` for +4915112345678). */
function nationalToken(workspaceId: string): string {
  return `n${workspaceToken(workspaceId)}`;
}

/** A contact's indexed text, per column of the search index. */
export interface SearchDocument {
  name: string;
  phone: string;
  email: string;
}

/** The indexed text of a contact. */
export function searchDocument(contact: {
  workspace_id: string;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}): SearchDocument {
  const tag = workspaceToken(contact.workspace_id);
  const joinedTag = joinedToken(contact.workspace_id);
  const name = foldLetters([contact.first_name ?? "", contact.last_name ?? ""].join(" "));
  const email = contact.email === null ? null : foldLetters(contact.email);
  const nameTerms = words(name).map((word) => `${tag}${word}`);
  for (const chunk of name.split(/\s+/)) {
    if (words(chunk).length > 1) nameTerms.push(`${joinedTag}${compact(chunk)}`);
  }
  const emailTerms = email
    ? [...words(email).map((word) => `${tag}${word}`), `${joinedTag}${compact(email)}`]
    : [];
  const digits = contact.phone.replace(/\D/g, "");
  const phoneTerms = [`${tag}${digits}`, `${suffixToken(contact.workspace_id)}${reversed(digits)}`];
  const national = nationalDigits(digits);
  if (national) phoneTerms.push(`${nationalToken(contact.workspace_id)}${national}`);
  return {
    name: nameTerms.join(" "),
    phone: phoneTerms.join(" "),
    email: emailTerms.join(" "),
  };
}

/**
 * The indexed text of a contact created from these fields alone, where an absent field is null
 * (as `nextRow` in contact-store.ts makes a new contact): an import's checker thread computes it
 * beside the thread that writes, which then only stores it.
 */
export function newContactSearchDocument(
  workspaceId: string,
  fields: { phone: string; first_name?: string; last_name?: string; email?: string },
): SearchDocument {
  return searchDocument({
    workspace_id: workspaceId,
    phone: fields.phone,
    first_name: fields.first_name ?? null,
    last_name: fields.last_name ?? null,
    email: fields.email ?? null,
  });
}

/** Digits this long or longer are also searched as the end of a number. */
const minSuffixDigits = 4;

/**
 * A search as a tree of terms (prefixes, and words matched whole), written out in each engine's syntax by
 * db/contact-rows/search-syntax.ts: the terms and the AND/OR between them are decided here once.
 */
export type SearchQuery =
  | { term: string }
  | { word: string }
  | { all: SearchQuery[] }
  | { any: SearchQuery[] };

const prefix = (term: string): SearchQuery => ({ term });
/** A term matched whole, not as a prefix. */
const whole = (word: string): SearchQuery => ({ word });
const any = (queries: SearchQuery[]): SearchQuery =>
  queries.length === 1 ? (queries[0] as SearchQuery) : { any: queries };
const all = (queries: SearchQuery[]): SearchQuery =>
  queries.length === 1 ? (queries[0] as SearchQuery) : { all: queries };

/**
 * A search of digits: the start of the E.164 number (also written with 00 for +), or, unless the
 * text starts with `+`, the start of its national form (with or without the trunk 0: `0151 1234`)
 * and the number's last digits (`12345678`).
 */
function phoneMatch(workspaceId: string, digits: string, international: boolean): SearchQuery {
  const tag = workspaceToken(workspaceId);
  const terms = [prefix(`${tag}${digits}`)];
  if (!international) {
    if (digits.startsWith("00") && digits.length > 2)
      terms.push(prefix(`${tag}${digits.slice(2)}`));
    const national = nationalToken(workspaceId);
    terms.push(prefix(`${national}${digits}`));
    if (digits.startsWith("0") && !digits.startsWith("00") && digits.length > 1) {
      terms.push(prefix(`${national}${digits.slice(1)}`));
    }
    if (digits.length >= minSuffixDigits) {
      terms.push(prefix(`${suffixToken(workspaceId)}${reversed(digits)}`));
    }
  }
  return any(terms);
}

/** At most this many words of a search are used. */
const maxTerms = 12;

/**
 * The search for a text in a workspace, or null when the text has no letter or digit at all
 * (such a search matches nothing). Text that looks like a phone number (digits, spaces, `+`,
 * `-`, dots, brackets) is searched as one run of digits. A word with separators or mixed letters
 * and digits (`anna.schmidt@ex`, `anna-lena`, `schmidt12`) matches a whole value that starts
 * with it, or every one of its runs; one with `@` or with digits (`anna.schmidt12`) only a whole
 * value.
 */
export function searchQuery(workspaceId: string, text: string): SearchQuery | null {
  const trimmed = foldLetters(text.trim());
  const tag = workspaceToken(workspaceId);
  if (/^[\d\s+()./-]+$/.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, "");
    return digits === "" ? null : phoneMatch(workspaceId, digits, trimmed.startsWith("+"));
  }
  const parts: SearchQuery[] = [];
  for (const chunk of trimmed.split(/\s+/).slice(0, maxTerms)) {
    const found = words(chunk);
    if (found.length === 0) continue;
    const joined = prefix(`${joinedToken(workspaceId)}${compact(chunk)}`);
    // An email address (or the start of one) is matched whole: its words are too common, and
    // a run of digits (`mueller1`) would start thousands of numbers.
    if (chunk.includes("@") || (found.length > 1 && /\p{N}/u.test(chunk))) {
      // The whole value is indexed without its separators, so `ada@` would also start
      // `adam@…`: each word typed before the `@` must also be a whole word of the contact.
      const local = chunk.includes("@") ? words(chunk.slice(0, chunk.indexOf("@"))) : [];
      parts.push(all([joined, ...[...new Set(local)].map((word) => whole(`${tag}${word}`))]));
      continue;
    }
    const each = all(found.map((word) => prefix(`${tag}${word}`)));
    parts.push(found.length === 1 ? each : any([joined, each]));
  }
  return parts.length === 0 ? null : all(parts);
}
