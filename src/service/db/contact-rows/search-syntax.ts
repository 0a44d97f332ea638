import { foldDiacritics, type SearchQuery } from "./contact-search.js";

/**
 * A search (domain/contact-search.ts decides its terms and the AND/OR between them) written in
 * each engine's query syntax. Terms are letters and digits only, and quoted besides, so user
 * text can never make a query error.
 */

/** How an engine writes a prefix term and joins terms. */
interface SearchSyntax {
  prefix(term: string): string;
  whole(term: string): string;
  all: string;
  any: string;
}

function written(query: SearchQuery, syntax: SearchSyntax, nested: boolean): string {
  if ("term" in query) return syntax.prefix(query.term);
  if ("word" in query) return syntax.whole(query.word);
  const children = "all" in query ? query.all : query.any;
  const operator = "all" in query ? syntax.all : syntax.any;
  const text = children.map((child) => written(child, syntax, true)).join(operator);
  return nested && children.length > 1 ? `(${text})` : text;
}

const fts5: SearchSyntax = {
  prefix: (term) => `"${term.replaceAll('"', '""')}"*`,
  whole: (term) => `"${term.replaceAll('"', '""')}"`,
  all: " AND ",
  any: " OR ",
};

/**
 * Accents are removed from the terms as SQLite's tokenizer removes them, since no text search
 * parser touches PostgreSQL's (see foldDiacritics).
 */
const quotedLexeme = (term: string) =>
  `'${foldDiacritics(term).replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;

const tsquery: SearchSyntax = {
  prefix: (term) => `${quotedLexeme(term)}:*`,
  whole: quotedLexeme,
  all: " & ",
  any: " | ",
};

/** SQLite: the search as FTS5 MATCH text (`"term"*`, AND, OR). */
export function fts5Match(query: SearchQuery): string {
  return written(query, fts5, false);
}

/**
 * PostgreSQL: the search as tsquery text (`'term':*`, `&`, `|`), to be cast with `::tsquery` so
 * no text search parser touches it.
 */
export function tsqueryText(query: SearchQuery): string {
  return written(query, tsquery, false);
}
