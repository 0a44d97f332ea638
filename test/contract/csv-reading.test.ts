import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { readHeader, readRow } from "../../src/contract/contact-csv.js";
import { emailPattern } from "../../src/contract/contact-rules.js";
import { CsvDecoder, notUtf8Reason } from "../../src/contract/csv-decoding.js";
import { neutraliseFormula, restoreFormula } from "../../src/contract/csv-formulas.js";
import { parseMappingFlags } from "../../src/contract/csv-options.js";
import { detectDelimiter, openContactCsv } from "../../src/contract/csv-reader.js";
import { defaultCountryProblem, e164Hint, normalizePhone } from "../../src/contract/phones.js";

describe("phones written without +", () => {
  it.each([
    ["4915112347003", "DE", "+4915112347003"],
    ["015112347003", "DE", "+4915112347003"],
    ["0049 151 12347003", "DE", "+4915112347003"],
    ["447911123456", "GB", "+447911123456"],
    ["07911123456", "GB", "+447911123456"],
    ["3331234567", "IT", "+393331234567"],
    ["393331234567", "IT", "+393331234567"],
    ["33612345678", "FR", "+33612345678"],
  ] as const)("reads %s with %s as %s", (input, country, e164) => {
    expect(normalizePhone(input, country)).toEqual({ ok: true, e164 });
  });

  it("refuses an Italian number that is valid read both ways as ambiguous_phone, naming both", () => {
    const result = normalizePhone("3902831222", "IT");
    expect(result).toMatchObject({ ok: false, reason: "ambiguous_phone" });
    expect(!result.ok && result.message).toBe(
      "ambiguous_phone: '3902831222' is +39 02 831222 or +39 390 283 1222; write it with + and the country code",
    );
  });

  it("accepts the same number written with + as unambiguous", () => {
    expect(normalizePhone("+39 02 831222", "IT")).toEqual({ ok: true, e164: "+3902831222" });
  });

  it("reads a cell seen before by the default country of each time it is read", () => {
    // Read once per distinct value: the remembered reading must be the one of this country.
    expect(normalizePhone("015112347003", "DE")).toEqual({ ok: true, e164: "+4915112347003" });
    expect(normalizePhone("015112347003", "AT")).toEqual({ ok: true, e164: "+4315112347003" });
    expect(normalizePhone("015112347003")).toMatchObject({
      ok: false,
      message: expect.stringContaining("has no country code"),
    });
    expect(normalizePhone("015112347003", "DE")).toEqual({ ok: true, e164: "+4915112347003" });
    expect(normalizePhone("DE 015112347003")).toMatchObject({ ok: false });
  });
});

describe("phones as spreadsheets and copied text leave them", () => {
  it.each([
    ["direction marks copied out of WhatsApp", "\u202a+49 151 12341002\u202c"],
    ["a zero-width space", "+49\u200b15112341002"],
    ["non-breaking hyphens", "+49\u2011151\u201112341002"],
    ["an en dash", "+49 151 \u2013 12341002"],
    ["a leading ' typed to keep the 0", "'015112341002"],
    ["a whole number written as a decimal", "4915112341002.0"],
    ["Excel's text formula that keeps the 0", '="0151 12341002"'],
  ])("reads a number with %s", (_what, cell) => {
    expect(normalizePhone(cell, "DE")).toEqual({ ok: true, e164: "+4915112341002" });
  });

  it("says a number in scientific notation lost its digits, rather than that it is no number", () => {
    for (const cell of ["4.91511E+11", "4,91511E+11", "'4.91511E+11"]) {
      expect(normalizePhone(cell, "DE")).toMatchObject({
        ok: false,
        message: expect.stringContaining(
          "a spreadsheet wrote in scientific notation, which loses its last digits",
        ),
      });
    }
  });

  it("says a cell of letters is no phone number, with or without a default country, not that it lacks a country code", () => {
    for (const country of [undefined, "DE"] as const) {
      expect(normalizePhone("not a phone", country)).toEqual({
        ok: false,
        message: `'not a phone' is not a phone number (${e164Hint})`,
      });
    }
    expect(normalizePhone("015112347003")).toMatchObject({
      ok: false,
      message: expect.stringContaining("default_country (the CLI's --default-country)"),
    });
  });

  it("keeps dots between groups of digits as formatting, not a decimal", () => {
    expect(normalizePhone("0151.123.410.02", "DE")).toEqual({ ok: true, e164: "+4915112341002" });
    // A float has no + and no leading 0: these ".0" are a person's last group of digits.
    expect(normalizePhone("+4930123456.0", "DE")).toEqual({ ok: true, e164: "+49301234560" });
    expect(normalizePhone("030123456.0", "DE")).toEqual({ ok: true, e164: "+49301234560" });
  });
});

describe("a header without a phone column", () => {
  it("names the separator a column name holds, when the file may be separated by it", () => {
    const header = readHeader(["Telefon;Name", " Vorname"]);
    expect(header).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        "a column name holds ';', so the file may be separated by it: give delimiter ';' (CLI: --delimiter ';')",
      ),
    });
  });
});

describe("email cells", () => {
  it("names an invisible character pasted into an address, which nobody can see in the cell", () => {
    const header = readHeader(["phone", "email"]);
    if (!header.ok) throw new Error(header.message);
    const row = readRow(["+4915112341002", "anna\u200B@example.com"], header.layout, {
      now: new Date(),
    });
    expect(row).toMatchObject({
      ok: false,
      problem: {
        field: "email",
        message:
          "email holds an invisible character (U+200B) that no address has: type the address again",
      },
    });
  });
});

describe("consent cells", () => {
  it("quotes the value it could not read", () => {
    const header = readHeader(["phone", "opt_in_status"]);
    if (!header.ok) throw new Error(header.message);
    const row = readRow(["+4915112341002", "Opted In"], header.layout, { now: new Date() });
    expect(row).toMatchObject({
      ok: false,
      problem: { field: "opt_in_status", message: expect.stringContaining("; got 'Opted In'") },
    });
  });

  it("says a consent time without a time zone needs one, as the API does", () => {
    const header = readHeader(["phone", "opted_in_at"]);
    if (!header.ok) throw new Error(header.message);
    const row = readRow(["+4915112341002", "2026-11-22T09:30:00"], header.layout, {
      now: new Date(),
    });
    expect(row).toMatchObject({
      ok: false,
      problem: {
        field: "opted_in_at",
        message: expect.stringContaining("needs a time-zone offset"),
      },
    });
  });
});

describe("formula neutralisation", () => {
  const hostile = ["=cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "+1+2", "\tx", "\rx", "'=x", "''@y"];
  it.each(hostile)("writes %j with a leading ' and reads it back unchanged", (value) => {
    const written = neutraliseFormula(value);
    expect(written).toBe(`'${value}`);
    expect(restoreFormula(written)).toBe(value);
  });

  it.each(["+4915112345678", "-42", "+1.5e3", "Anna", "'plain", ""])(
    "leaves %j as it is both ways",
    (value) => {
      expect(neutraliseFormula(value)).toBe(value);
      expect(restoreFormula(value)).toBe(value);
    },
  );

  it("reads a hand-typed '+4915112345678 as the number", () => {
    expect(restoreFormula("'+4915112345678")).toBe("+4915112345678");
  });

  it.each(["\t", "\r", "\r\n", "\tx ", "=1+1"])(
    "gives back a custom value %j as exported, whitespace included, never a lone '",
    (value) => {
      const header = readHeader(["phone", "custom.note"]);
      if (!header.ok) throw new Error(header.message);
      const row = readRow(["+4915112345678", neutraliseFormula(value)], header.layout, {
        now: new Date(),
      });
      expect(row.ok && row.contact.custom_fields?.note).toBe(value.trimEnd() || value);
    },
  );
});

describe("reading files", () => {
  it.each([
    ["phone,first_name", ","],
    ["phone;first_name;last_name", ";"],
    ["phone\tfirst_name", "\t"],
    ["phone|first_name", "|"],
    ['"a;b",c,d', ","],
    ["phone", ","],
  ])("detects the separator of %j as %j", (header, delimiter) => {
    expect(detectDelimiter(header)).toBe(delimiter);
  });

  it("keeps a UTF-16 character split between two pieces whole", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("phone,名\n", "utf16le")]);
    const decoder = new CsvDecoder();
    const parts = [decoder.write(bytes.subarray(0, 1)), decoder.write(bytes.subarray(1, 13))];
    parts.push(decoder.write(bytes.subarray(13)), decoder.end());
    expect(Buffer.concat(parts).toString("utf8")).toBe("phone,名\n");
    expect(decoder.encoding).toBe("utf-16le");
  });

  it.each([
    ["utf-16le", Buffer.from([0xff, 0xfe])],
    ["utf-16be", Buffer.from([0xfe, 0xff])],
  ] as const)(
    "keeps an emoji whose two halves fall in two pieces whole in %s",
    (encoding, mark) => {
      const text = "phone,name\n+4915112340001,Ana 😀\n";
      const le = Buffer.from(text, "utf16le");
      const body = encoding === "utf-16le" ? le : Buffer.from(le).swap16();
      const bytes = Buffer.concat([mark, body]);
      const split = bytes.length - 6; // between the emoji's two halves
      for (const cut of [split - 1, split, split + 1]) {
        const decoder = new CsvDecoder();
        const parts = [decoder.write(bytes.subarray(0, cut)), decoder.write(bytes.subarray(cut))];
        parts.push(decoder.end());
        expect(Buffer.concat(parts).toString("utf8"), `cut at ${cut}`).toBe(text);
        expect(decoder.invalid).toBeNull();
      }
    },
  );

  it("names the exact byte of half a UTF-16 character, however the file arrives in pieces", () => {
    const le = (text: string) => Buffer.from(text, "utf16le");
    const mark = Buffer.from([0xff, 0xfe]);
    const inside = Buffer.concat([mark, le("a"), Buffer.from([0x3d, 0xd8]), le("z")]);
    const atEnd = Buffer.concat([mark, le("az"), Buffer.from([0x3d, 0xd8])]);
    for (const [bytes, byte] of [
      [inside, 5],
      [atEnd, 7],
    ] as const) {
      for (let cut = 1; cut < bytes.length; cut++) {
        const decoder = new CsvDecoder();
        decoder.write(bytes.subarray(0, cut));
        decoder.write(bytes.subarray(cut));
        decoder.end();
        expect(decoder.invalid, `cut at ${cut}`).toBe(
          `it holds half a character (a lone UTF-16 surrogate) at byte ${byte}`,
        );
      }
    }
  });

  it("reads every byte of an ISO-8859-1 file: 0x80 as €, and 0x81, undefined in windows-1252, as Latin-1's", () => {
    const decoder = new CsvDecoder("iso-8859-1");
    const text = Buffer.concat([
      decoder.write(Buffer.from([0x80, 0x81, 0xe9, 0x0a])),
      decoder.end(),
    ]);
    expect(text.toString("utf8")).toBe("€\u0081é\n");
    expect(decoder.invalid).toBeNull();
  });

  it("reads a file with a UTF-8 mark as UTF-8 even when told windows-1252", () => {
    const reader = openContactCsv({ encoding: "windows-1252" });
    const rows: (string[] | null)[] = [];
    reader.feed(Buffer.from("\ufeffphone,first_name\n+4915112345678,Jörg\n"), (r) =>
      rows.push(r.fields),
    );
    reader.feed(undefined, (r) => rows.push(r.fields));
    expect(reader.encoding).toBe("utf-8");
    expect(rows).toEqual([["+4915112345678", "Jörg"]]);
  });

  it("reads a file fed a byte at a time as one fed whole", () => {
    const file = Buffer.from('\ufeffphone;name\n+4915112345678;"Anna; B"\n', "utf8");
    const reader = openContactCsv();
    const rows: (string[] | null)[] = [];
    for (const byte of file) reader.feed(Buffer.from([byte]), (r) => rows.push(r.fields));
    reader.feed(undefined, (r) => rows.push(r.fields));
    expect(reader.delimiter).toBe(";");
    expect(rows).toEqual([["+4915112345678", "Anna; B"]]);
  });

  it("reads Excel's sep=; first line as the separator, not as the header, whole or a byte at a time", () => {
    const file = Buffer.from("\ufeffsep=;\r\nphone;first_name\r\n+4915112345678;Anna, B\r\n");
    for (const pieces of [[file], [...file].map((byte) => Buffer.from([byte]))]) {
      const reader = openContactCsv();
      const rows: (string[] | null)[] = [];
      for (const piece of pieces) reader.feed(piece, (r) => rows.push(r.fields));
      reader.feed(undefined, (r) => rows.push(r.fields));
      expect(reader.delimiter).toBe(";");
      expect(reader.header).toEqual(["phone", "first_name"]);
      expect(rows).toEqual([["+4915112345678", "Anna, B"]]);
    }
  });

  it("maps headers case-insensitively and lists every column with its field", () => {
    const header = readHeader(["Mobile", "Name", "Notes"], { mobile: "phone", NAME: "first_name" });
    expect(header).toMatchObject({
      ok: true,
      layout: { mapping: { Mobile: "phone", Name: "first_name", Notes: null }, ignored: ["Notes"] },
    });
  });

  it("keeps custom columns whose keys differ only in case apart, as the import's job reads them again", () => {
    const header = ["phone", "custom.City", "custom.city"];
    const first = readHeader(header);
    expect(first.ok && first.layout.mapping).toEqual({
      phone: "phone",
      "custom.City": "custom.City",
      "custom.city": "custom.city",
    });
    // The job reads the stored file with the record's mapping: the same two columns.
    const again = readHeader(header, first.ok ? first.layout.mapping : null);
    expect(again.ok && again.layout.custom.map((c) => c.key)).toEqual(["City", "city"]);
    // A mapping of one of them leaves the other to its default reading.
    const one = readHeader(header, { "custom.city": "last_name" });
    expect(one.ok && one.layout.mapping).toEqual({
      phone: "phone",
      "custom.City": "custom.City",
      "custom.city": "last_name",
    });
  });

  it("says to rename one of two columns of the same name, as a mapping cannot tell them apart", () => {
    const same = readHeader(["Phone", "Phone", "Name"], { Phone: "phone" });
    expect(same).toMatchObject({ ok: false, message: expect.stringContaining("or rename one") });
    // Two spellings can be told apart: a mapping may set one aside.
    const spellings = readHeader(["Phone", "phone"], { Phone: "phone" });
    expect(spellings).toMatchObject({
      ok: false,
      message: expect.stringContaining("or map one of them to null"),
    });
  });

  /** The opt_in_status a consent cell is read as, or why it is refused. */
  function status(cell: string): string {
    const header = readHeader(["phone", "opt_in_status"]);
    if (!header.ok) throw new Error(header.message);
    const row = readRow(["+4915112345678", cell], header.layout, { now: new Date() });
    return row.ok ? String(row.contact.opt_in_status) : row.problem.message;
  }

  it("reads consent as yes/no, true/false and 1/0 in any case", () => {
    expect(["YES", "True", "1", "no", "FALSE", "0"].map(status)).toEqual([
      "opted_in",
      "opted_in",
      "opted_in",
      "not_set",
      "not_set",
      "not_set",
    ]);
    expect(status("maybe")).toContain("yes/no, true/false or 1/0");
  });

  it("reads consent in the languages of the column names it recognises, as a German Excel writes WAHR", () => {
    for (const yes of ["Ja", "WAHR", "oui", "Sí", "sì", "sim", "TAK", "Y"])
      expect(status(yes)).toBe("opted_in");
    for (const no of ["nein", "FALSCH", "Non", "não", "nee", "nie", "n"])
      expect(status(no)).toBe("not_set");
    expect(status("vielleicht")).toContain("also ja/nein, oui/non");
  });

  it("refuses a row that alone fills more custom fields than a contact may hold, as --dry-run and the import both read it", () => {
    const keys = Array.from({ length: 51 }, (_, i) => `custom.k${i}`);
    const header = readHeader(["phone", ...keys]);
    if (!header.ok) throw new Error(header.message);
    const cells = (filled: number) => keys.map((_, i) => (i < filled ? "x" : ""));
    const row = (filled: number) =>
      readRow(["+4915112345678", ...cells(filled)], header.layout, { now: new Date() });
    expect(row(50).ok).toBe(true);
    expect(row(51)).toMatchObject({
      ok: false,
      problem: { field: "custom_fields", message: expect.stringContaining("at most 50") },
    });
  });

  it("parses --map flags, a header containing = included", () => {
    expect(parseMappingFlags(["Phone 1 - Value=phone", "a=b=email", "Labels="])).toEqual({
      "Phone 1 - Value": "phone",
      "a=b": "email",
      Labels: null,
    });
  });
});

describe("internationalised email addresses", () => {
  it.each(["émilie.10@example.com", "josé@exämple.de", "用户@例子.广告", "a@xn--exmple-cua.de"])(
    "accepts %s",
    (email) => expect(emailPattern.test(email)).toBe(true),
  );
  it.each(["a b@x.de", "a..b@x.de", "a@x", "a@-x.de", "@x.de", "a@x.de\u0000"])(
    "refuses %j",
    (email) => expect(emailPattern.test(email)).toBe(false),
  );
});

describe("telling UTF-8 from the encodings of one byte a character", () => {
  /** The bytes fed to a decoder of `encoding` in pieces of `size` bytes. */
  const decodedInPieces = (bytes: Buffer, encoding: "utf-8" | "windows-1252", size: number) => {
    const decoder = new CsvDecoder(encoding);
    for (let at = 0; at < bytes.length; at += size) decoder.write(bytes.subarray(at, at + size));
    decoder.end();
    return decoder;
  };
  const utf8 = Buffer.from("phone,name\n+4915112340101,Jürgen Müller\n+4915112340102,Zoë\n");
  const iconvEncode = (text: string) => iconv.encode(text, "windows-1252");

  it("counts a letter split between two pieces once, and finds no damaged byte in whole UTF-8", () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const decoder = decodedInPieces(utf8, "windows-1252", size);
      expect(decoder.survey.multibyte, `pieces of ${size}`).toBe(3);
      expect(decoder.survey.firstStray).toBeNull();
      expect(decoder.invalid).toContain("it reads as UTF-8: 3 of its characters, such as 'ü'");
    }
  });

  it("takes a real windows-1252 file as windows-1252", () => {
    const decoder = decodedInPieces(Buffer.from(utf8.toString(), "latin1"), "windows-1252", 5);
    expect(decoder.invalid).toBeNull();
  });

  it("takes a windows-1252 file whose accented capital meets a curly quote (the bytes of one UTF-8 letter) as windows-1252", () => {
    const text = "phone,name\n+4915112340101,JOSÉ’S Müller\n+4915112340102,Jürgen Köhler\n";
    const bytes = iconvEncode(text);
    expect(decodedInPieces(bytes, "windows-1252", 64).invalid).toBeNull();
    // Sent as UTF-8, it is told to name its encoding, not to mend a byte.
    expect(notUtf8Reason(decodedInPieces(bytes, "utf-8", 64), "--encoding")).toContain(
      "; name its encoding with --encoding",
    );
  });

  it("takes no UTF-8 byte order mark for a letter", () => {
    const bytes = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      iconvEncode("phone,name\nMüller\n"),
    ]);
    expect(decodedInPieces(bytes, "utf-8", 64).survey.example).toBeNull();
  });

  it("tells UTF-8 Cyrillic sent as windows-1252 as UTF-8, though it holds bytes windows-1252 leaves undefined", () => {
    const bytes = Buffer.from("phone,name\n+4915112340101,Светлана Соколова\n");
    const decoder = decodedInPieces(bytes, "windows-1252", 8);
    expect(decoder.utf8Instead).toBe(true);
    expect(decoder.invalid).toContain("it reads as UTF-8: 16 of its characters, such as 'С'");
  });

  it("names the first damaged byte of a UTF-8 file by its place in the file", () => {
    const longer = Buffer.concat([utf8, Buffer.from("+4915112340103,Jürgen Köhler\n".repeat(4))]);
    const damaged = Buffer.concat([
      longer.subarray(0, 30),
      Buffer.from([0xfc]),
      longer.subarray(32),
    ]);
    const decoder = decodedInPieces(damaged, "utf-8", 4);
    expect(notUtf8Reason(decoder, "--encoding")).toBe(
      "is not UTF-8 text: byte 0xFC (byte 31 of the file) is no UTF-8, though its other letters are (such as 'ü'): that byte looks damaged; correct it in the file (or save it again as CSV UTF-8), as naming another encoding would store those letters garbled",
    );
  });
});

describe("a default country", () => {
  it("takes a code in any case and points UK, the code people guess, to GB", () => {
    expect(defaultCountryProblem("de")).toBeNull();
    expect(defaultCountryProblem("UK")).toBe(
      "'UK' is not a two-letter country code such as DE, US or GB (the United Kingdom is GB)",
    );
  });
});

describe("a header's nameless columns", () => {
  it("are read as nothing and not listed among the ignored columns", () => {
    const result = readHeader(["phone", "first_name", "", " ", "Notes"]);
    expect(result.ok && result.layout.ignored).toEqual(["Notes"]);
  });
});
