/**
 * CSV injection: a spreadsheet runs a cell starting with = + - @ (or tab / carriage return) as a
 * formula. Every CSV the project writes passes its cells through `neutraliseFormula`, and the
 * import passes every cell through `restoreFormula`, so export → import gives back the values.
 */

/** Leading quotes, then a character a spreadsheet reads as the start of a formula. */
const formulaStart = /^'*[=+\-@\t\r]/;
/** A number a spreadsheet shows as a number: +4915112345678, -12.5, 1e3. */
const plainNumber = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The cell as it is safe to write: a leading `'` added before a formula start that is not a
 * plain number (a phone such as +4915112345678 stays as it is). Cells that already start with
 * `'` and then a formula start get one more, so the import's stripping gives them back unchanged.
 */
export function neutraliseFormula(cell: string): string {
  return formulaStart.test(cell) && !plainNumber.test(cell) ? `'${cell}` : cell;
}

/**
 * Undoes `neutraliseFormula`: drops one leading `'` before a formula start. A hand-written
 * `'+4915112345678` (the quote Excel users type to keep the +) reads as the number too.
 */
export function restoreFormula(cell: string): string {
  return cell.startsWith("'") && formulaStart.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** Every cell of some rows neutralised, for csv-stringify. */
export function neutraliseRows(rows: readonly (readonly string[])[]): string[][] {
  return rows.map((row) => row.map(neutraliseFormula));
}
