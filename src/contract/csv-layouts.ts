import type { CsvMapping } from "./csv-options.js";

/**
 * The contact exports people bring most often, recognised by their header, with the mapping
 * that imports them. Used for the 422 of a file without a `phone` column, for the CLI's
 * `--preset` and for the mapping it proposes at a terminal.
 */

export const csvPresets = ["google", "outlook", "hubspot"] as const;
export type CsvPreset = (typeof csvPresets)[number];

interface KnownLayout {
  preset: CsvPreset;
  /** How people call the export, with its article. */
  title: string;
  /** Every one of these headers is in the export (lower case). */
  signature: string[];
  /** Header (lower case) → field; the first header of a field found in the file wins. */
  fields: [string, string][];
}

const knownLayouts: KnownLayout[] = [
  {
    preset: "google",
    title: "a Google Contacts export",
    signature: ["phone 1 - value"],
    fields: [
      ["phone 1 - value", "phone"],
      ["first name", "first_name"],
      ["given name", "first_name"],
      ["last name", "last_name"],
      ["family name", "last_name"],
      ["e-mail 1 - value", "email"],
    ],
  },
  {
    preset: "outlook",
    title: "an Outlook contacts export",
    signature: ["mobile phone", "e-mail address"],
    fields: [
      ["mobile phone", "phone"],
      ["first name", "first_name"],
      ["last name", "last_name"],
      ["e-mail address", "email"],
      ["categories", "tags"],
    ],
  },
  {
    preset: "hubspot",
    title: "a HubSpot contacts export",
    signature: ["record id", "email"],
    fields: [
      ["phone number", "phone"],
      ["mobile phone number", "phone"],
      ["first name", "first_name"],
      ["last name", "last_name"],
      ["email", "email"],
      ["record id", "custom.hubspot_record_id"],
    ],
  },
];

/** A recognised export and the mapping that imports it (only headers the file has). */
export interface RecognisedLayout {
  preset: CsvPreset;
  title: string;
  mapping: CsvMapping;
  /**
   * Other columns of the file the export may hold the numbers in (HubSpot's `Mobile Phone
   * Number` beside `Phone Number`): the mapping takes the first, which may be the empty one.
   */
  otherPhones: string[];
}

function mappingFor(layout: KnownLayout, header: readonly string[]): RecognisedLayout {
  const mapping: CsvMapping = {};
  const taken = new Set<string>();
  const otherPhones: string[] = [];
  for (const [name, field] of layout.fields) {
    const found = header.find((h) => h.trim().toLowerCase() === name);
    if (found === undefined) continue;
    if (taken.has(field)) {
      if (field === "phone") otherPhones.push(found.trim());
      continue;
    }
    mapping[found.trim()] = field;
    taken.add(field);
  }
  return { preset: layout.preset, title: layout.title, mapping, otherPhones };
}

/** The export this header comes from, or null when it is none the import knows. */
export function recogniseLayout(header: readonly string[]): RecognisedLayout | null {
  const names = new Set(header.map((h) => h.trim().toLowerCase()));
  const layout = knownLayouts.find((l) => l.signature.every((s) => names.has(s)));
  return layout ? mappingFor(layout, header) : null;
}

/** The mapping of a preset for this header (the CLI's `--preset`). */
export function presetMapping(preset: CsvPreset, header: readonly string[]): RecognisedLayout {
  const layout = knownLayouts.find((l) => l.preset === preset) as KnownLayout;
  return mappingFor(layout, header);
}

/**
 * Column names people give the fields in their own spreadsheets, in the languages of most
 * clients, folded as `foldedColumnName` folds them (`Téléphone` → `telephone`, `E-Mail` →
 * `email`). Only a guess to propose: the import itself reads a column only by its field's name or
 * a mapping. Names that often mean something else are left out: `Nombre` or `Name` is as often
 * the whole name as the first, `Posta` a postal address, `Last` anything.
 */
const commonColumnNames: ReadonlyArray<readonly [string, readonly string[]]> = (
  [
    [
      "phone",
      "phone phonenumber mobile mobilephone mobilenumber cell cellphone telephone tel whatsapp " +
        "whatsappnumber telefon telefonnummer handy handynummer mobil mobilnummer mobilfunknummer " +
        "mobiltelefon portable numerodetelephone telefono numerodetelefono movil celular " +
        "cellulare telemovel telefoon mobiel telefoonnummer numertelefonu telefonu komorka",
    ],
    ["first_name", "firstname givenname forename vorname prenom voornaam imie"],
    [
      "last_name",
      "lastname surname familyname nachname familienname nom apellido apellidos cognome " +
        "sobrenome achternaam nazwisko",
    ],
    [
      "email",
      "email emailaddress mail mailaddress emailadresse mailadresse courriel adresseemail correo " +
        "correoelectronico postaelettronica adresemail",
    ],
    ["tags", "tags labels label categories category gruppen gruppe etiquetas"],
    // Only names that say opt-in or WhatsApp: a `Consent` or `Marketing consent` column may
    // record consent to email, which must never become consent to WhatsApp by a guess.
    ["opt_in_status", "optinstatus optin optedin whatsappoptin whatsappconsent"],
  ] as const
).map(([field, names]) => [field, names.split(" ")] as const);

/** A column's name folded for the guess: lower case, no accents, letters and digits only. */
function foldedColumnName(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\u0142/g, "l")
    .replace(/[^a-z0-9]/g, "");
}

/**
 * The mapping this header's own column names suggest for the columns that name no field by
 * themselves (`Telefon` → phone, `Vorname` → first_name; `readsAs` says what a name reads as on
 * its own, which the guess leaves as it is and never gives to another column). Null when no
 * column, or more than one, looks like the phone, which every contact needs: a landline beside a
 * mobile is the user's choice, not a guess.
 */
export function guessMapping(
  header: readonly string[],
  readsAs: (name: string) => string | null,
): CsvMapping | null {
  const { taken, candidates } = columnGuesses(header, readsAs);
  if (candidates.filter((c) => c.field === "phone").length !== 1 || taken.has("phone")) return null;
  return guessedMapping(taken, candidates);
}

/**
 * For a header that names its phone column: the columns the import will ignore whose names
 * look like a field no other column names (`First Name` → first_name, `Opt-In Status` →
 * opt_in_status), so a user can be told before their data is left out. Never phone.
 */
export function guessIgnoredColumns(
  header: readonly string[],
  readsAs: (name: string) => string | null,
): CsvMapping {
  const { taken, candidates } = columnGuesses(header, readsAs);
  if (!taken.has("phone")) return {};
  return guessedMapping(
    taken,
    candidates.filter((c) => c.field !== "phone"),
  );
}

interface ColumnGuess {
  name: string;
  field: string | undefined;
}

/** The fields a header's names give by themselves, and what each other name looks like. */
function columnGuesses(
  header: readonly string[],
  readsAs: (name: string) => string | null,
): { taken: Set<string>; candidates: ColumnGuess[] } {
  const names = [...new Set(header.map((cell) => cell.trim()).filter((name) => name !== ""))];
  const taken = new Set(names.map(readsAs).filter((field) => field !== null));
  const candidates = names
    .filter((name) => readsAs(name) === null)
    .map((name) => {
      const folded = foldedColumnName(name);
      return { name, field: commonColumnNames.find(([, known]) => known.includes(folded))?.[0] };
    });
  return { taken, candidates };
}

/** The first column that looks like each field not taken yet. */
function guessedMapping(taken: ReadonlySet<string>, candidates: ColumnGuess[]): CsvMapping {
  const given = new Set(taken);
  const mapping: CsvMapping = {};
  for (const { name, field } of candidates) {
    if (field === undefined || given.has(field)) continue;
    mapping[name] = field;
    given.add(field);
  }
  return mapping;
}
