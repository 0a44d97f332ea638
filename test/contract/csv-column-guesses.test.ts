import { describe, expect, it } from "vitest";
import { fieldNamedBy, readHeader } from "../../src/contract/contact-csv.js";
import { guessIgnoredColumns, guessMapping } from "../../src/contract/csv-layouts.js";

/**
 * A file without a `phone` column gets the mapping its own column names suggest (in the 422,
 * and proposed at the CLI's prompt), but a guess never takes a column that names a field by
 * itself, and never chooses between two phone columns.
 */
describe("the mapping a header's own column names suggest", () => {
  const guess = (header: string[]) => guessMapping(header, fieldNamedBy);

  it("reads column names of several languages, whatever their case, accents or dashes", () => {
    expect(guess(["Vorname", "Nachname", "Telefon", "E-Mail", "Notiz"])).toEqual({
      Vorname: "first_name",
      Nachname: "last_name",
      Telefon: "phone",
      "E-Mail": "email",
    });
    expect(guess(["Prénom", "NOM", " Téléphone ", "Courriel"])).toEqual({
      Prénom: "first_name",
      NOM: "last_name",
      Téléphone: "phone",
      Courriel: "email",
    });
  });

  it("leaves the columns that name a field as they are: consent, custom fields, a real email", () => {
    expect(
      guess([
        "Telefon",
        "first_name",
        "opt_in_status",
        "opted_in_at",
        "custom.city",
        "Mail",
        "email",
      ]),
    ).toEqual({ Telefon: "phone" });
  });

  it("suggests nothing where two columns could be the phone, or none", () => {
    expect(guess(["Tel", "Handy", "Vorname"])).toBeNull();
    expect(guess(["Vorname", "Nachname"])).toBeNull();
    // Names every object has are no column names of the guess.
    expect(guess(["constructor", "toString", "Mobile"])).toEqual({ Mobile: "phone" });
  });

  it("is what the 422 of a file without a phone column suggests, with the CLI's flags", () => {
    const read = readHeader(["Telefon", "Vorname", "opt_in_status"]);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.message).toContain(
      `its column names suggest the mapping {"Telefon":"phone","Vorname":"first_name"} (CLI: --map "Telefon=phone" --map "Vorname=first_name")`,
    );
  });
});

describe("the ignored columns beside a phone column that look like fields", () => {
  const lookAlikes = (header: string[]) => guessIgnoredColumns(header, fieldNamedBy);

  it("names the columns that look like a field no other column names, consent included", () => {
    expect(lookAlikes(["phone", "Opt-In Status", "First Name", "Notes"])).toEqual({
      "Opt-In Status": "opt_in_status",
      "First Name": "first_name",
    });
  });

  it("never offers a second phone, nor a field another column already names", () => {
    expect(lookAlikes(["phone", "Mobile", "first_name", "Vorname", "E-Mail"])).toEqual({
      "E-Mail": "email",
    });
  });

  it("offers nothing for a file without a phone column: that is guessMapping's question", () => {
    expect(lookAlikes(["Telefon", "Vorname"])).toEqual({});
  });
});
