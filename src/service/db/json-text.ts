/** Brands a JSON column with the type it holds; never present at run time. */
declare const jsonOf: unique symbol;

/**
 * A column's JSON text, typed by what it holds (the table declares it once): any string is
 * written to it (`JSON.stringify`'s), and parseJson reads it back as that type.
 */
export type JsonText<T> = string & { readonly [jsonOf]?: T };

/** What a JSON column holds, as its table declares it: the one place stored JSON is typed. */
export function parseJson<T>(text: JsonText<T>): T {
  return JSON.parse(text) as T;
}
