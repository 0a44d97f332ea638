import { describe, expect, it } from "vitest";
import { CsvRecordReader } from "../../src/contract/csv-records.js";
import { CsvRowScanner } from "../../src/contract/csv-row-scanner.js";

/** The data rows the import's own csv-parse reads. */
function parsed(text: string, delimiter: string) {
  const reader = new CsvRecordReader({ delimiter });
  let rows = 0;
  const sink = () => {
    rows += 1;
  };
  reader.feed(Buffer.from(text), sink);
  reader.feed(undefined, sink);
  return rows;
}

/** The scanner's count, fed the whole text or one byte at a time. */
function scanned(text: string, delimiter: string, byteByByte: boolean) {
  const scanner = new CsvRowScanner(delimiter);
  const bytes = Buffer.from(text);
  if (byteByByte) for (const byte of bytes) scanner.feed(Uint8Array.of(byte));
  else scanner.feed(bytes);
  return scanner.rows;
}

describe("the quick row count of an upload", () => {
  const files: [string, string, string][] = [
    ["plain rows", "phone,name\n+1,a\n+2,b\n", ","],
    ["a quote inside an unquoted cell is text (12-inch)", 'phone,name\n+1,12" pizza\n+2,b\n', ","],
    ["a quoted cell followed by more text is text", 'phone,name\n+1,"ab"cd\n+2,b\n', ","],
    [
      "a quoted cell holding a line break and a doubled quote",
      'phone,name\n+1,"a\n""b"""\n+2,b\n',
      ",",
    ],
    ["CRLF, CR and blank lines", "phone,name\r\n+1,a\r\n\r\n+2,b\r+3,c", ","],
    ["a line of separators only is blank", "phone,name\n,\n+1,a\n", ","],
    [
      "semicolons, with a comma before a quote inside a cell",
      'phone;name\n+1;Müller,"Anna"\n+2;b\n',
      ";",
    ],
    ["a byte order mark", '\uFEFF"phone",name\n+1,a\n', ","],
    [
      "a quote opened on a middle row and never closed",
      'phone,name\n+1,a\n+2,"b\n+3,c\n+4,d\n',
      ",",
    ],
    ["a quote never closed on the last row", 'phone,name\n+1,a\n+2,"b', ","],
    ["a closing quote as the file's last byte", 'phone,name\n+1,"b"', ","],
    ["tabs", 'phone\tname\n+1\t"a\tb"\n', "\t"],
    [
      "a record of empty quoted cells is skipped as a blank line",
      'phone,name\n+1,a\n"",""\n" "\n+2,b\n',
      ",",
    ],
    ["a doubled quote alone is a cell holding a quote", 'phone,name\n""""\n+1,a\n', ","],
  ];

  it.each(files)("counts as csv-parse reads it: %s", (_name, text, delimiter) => {
    const expected = parsed(text, delimiter);
    expect(scanned(text, delimiter, false)).toEqual(expected);
    expect(scanned(text, delimiter, true)).toEqual(expected);
  });

  it("names the row of a stray quote that a later quote closes mid-cell, taking the lines between", () => {
    const scanner = new CsvRowScanner(",");
    scanner.feed(Buffer.from('phone,name\n+1,Ann\n+2,"Bob,Two\n+3,Cid\n+4,12" pizza\n+5,Eve\n'));
    expect(scanner.strayQuoteRow).toBe(2);
    expect(scanner.refusal).toContain("row 2 opens a quoted cell that runs over several lines");
    // A cell that holds a line break and closes where the cell ends is as CSV means it.
    const fine = new CsvRowScanner(",");
    fine.feed(Buffer.from('phone,note\n+1,"two\nlines"\n+2,"12"" pizza" \n'));
    expect(fine.refusal).toBeNull();
  });

  it("does not count Excel's sep= line as a row, nor in the row it names", () => {
    const scanner = new CsvRowScanner(",", { separatorLine: true });
    scanner.feed(Buffer.from('sep=,\nphone,name\n+1,"a\n+2,b\n+3,c\n'));
    expect(scanner.unclosedQuoteRow).toBe(1);
    const counted = new CsvRowScanner(";", { separatorLine: true });
    counted.feed(Buffer.from("sep=;\r\nphone;name\r\n+1;a\r\n+2;b\r\n"));
    expect(counted.rows).toBe(2);
  });

  it("names the data row where a quote that never closes opened, when it takes later lines with it", () => {
    const unclosed = (text: string) => {
      const scanner = new CsvRowScanner(",");
      scanner.feed(Buffer.from(text));
      return scanner.unclosedQuoteRow;
    };
    expect(unclosed('phone,name\n+1,a\n+2,"b\n\n+3,c\n')).toBe(2);
    expect(unclosed('phone,"name\n+1,a\n')).toBe(0);
    // Left open on the last line it costs that line alone: a row error of the import.
    expect(unclosed('phone,name\n+1,a\n+2,"b\n')).toBeNull();
    expect(unclosed('phone,name\n+1,a\n+2,"b')).toBeNull();
    expect(unclosed('phone,name\n+1,"a\nb"\n')).toBeNull();
  });
});
