/**
 * Contact search over the FTS5 index `contacts_fts` (columns name, phone, email; rowid is
 * contacts.seq).
 *
 * Every word the user types must start a word of the name or email, the whole email address,
 * or the phone's digits. Each indexed word carries its workspace's id as a prefix
 * (`ws01jd…anna`), so a search is a prefix query on the workspace's own terms: it never leaves
 * its workspace and needs no filter over a million-entry list of the workspace's rows, which
 * keeps counting and paging matches cheap at a million contacts.
 *
 * User text never reaches FTS5's query syntax: each word is reduced to its letters and digits
 * and written as a quoted prefix term, so quotes, `*`, `-`, `AND`, `NEAR(` and the like are
 * searched literally and can never make a query error.
 */

const separators = /[^\p{L}\p{N}]+/gu;
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

/** The indexed text of a contact. */
export function searchDocument(contact: {
  workspace_id: string;
  phone: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}): { name: string; phone: string; email: string } {
  const tag = workspaceToken(contact.workspace_id);
  const joinedTag = joinedToken(contact.workspace_id);
  const name = [contact.first_name ?? "", contact.last_name ?? ""].join(" ");
  const nameTerms = words(name).map((word) => `${tag}${word}`);
  for (const chunk of name.split(/\s+/)) {
    if (words(chunk).length > 1) nameTerms.push(`${joinedTag}${compact(chunk)}`);
  }
  const emailTerms = contact.email
    ? [
        ...words(contact.email).map((word) => `${tag}${word}`),
        `${joinedTag}${compact(contact.email)}`,
      ]
    : [];
  return {
    name: nameTerms.join(" "),
    phone: `${tag}${contact.phone.replace(/\D/g, "")}`,
    email: emailTerms.join(" "),
  };
}

/** At most this many words of a search are used. */
const maxTerms = 12;

function prefixTerm(text: string): string {
  return `"${text.replaceAll('"', '""')}"*`;
}

/**
 * The FTS5 MATCH expression for a search in a workspace, or null when the text has no letter
 * or digit at all (such a search matches nothing). Text that looks like a phone number
 * (digits, spaces, `+`, `-`, dots, brackets) is searched as one run of digits. A word with
 * separators or mixed letters and digits (`anna.schmidt@ex`, `anna-lena`, `schmidt12`) matches
 * a whole value that starts with it, or every one of its runs; one with `@` or with digits
 * (`anna.schmidt12`) only a whole value.
 */
export function searchMatch(workspaceId: string, text: string): string | null {
  const trimmed = text.trim();
  const tag = workspaceToken(workspaceId);
  if (/^[\d\s+().-]+$/.test(trimmed)) {
    const digits = trimmed.replace(/\D/g, "");
    return digits === "" ? null : prefixTerm(`${tag}${digits}`);
  }
  const parts: string[] = [];
  for (const chunk of trimmed.split(/\s+/).slice(0, maxTerms)) {
    const found = words(chunk);
    if (found.length === 0) continue;
    const joined = prefixTerm(`${joinedToken(workspaceId)}${compact(chunk)}`);
    // An email address (or the start of one) is matched whole: its words are too common, and
    // a run of digits (`mueller1`) would start thousands of numbers.
    if (chunk.includes("@") || (found.length > 1 && /\p{N}/u.test(chunk))) {
      parts.push(joined);
      continue;
    }
    const each = found.map((word) => prefixTerm(`${tag}${word}`)).join(" AND ");
    parts.push(found.length === 1 ? each : `(${joined} OR (${each}))`);
  }
  return parts.length === 0 ? null : parts.join(" AND ");
}
