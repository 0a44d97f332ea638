// Generated contacts for the contact benchmarks: deterministic, valid German mobile numbers,
// names from small lists (so a first name matches a few percent of a million contacts, as in
// life), unique emails, one or two tags, a consent status and one custom field.
import { exportHeader, exportRow } from "../src/contract/contact-csv.js";

const firstNames = [
  "Anna",
  "Ben",
  "Clara",
  "David",
  "Emma",
  "Felix",
  "Greta",
  "Hannah",
  "Ida",
  "Jonas",
  "Karl",
  "Lena",
  "Max",
  "Nina",
  "Oskar",
  "Paula",
  "Quirin",
  "Rosa",
  "Sven",
  "Tina",
  "Ulla",
  "Viktor",
  "Wanda",
  "Xaver",
  "Yara",
  "Zoe",
  "Lukas",
  "Mia",
  "Noah",
  "Lea",
  "Elias",
  "Sophie",
  "Finn",
  "Marie",
  "Paul",
  "Emilia",
  "Leon",
  "Lina",
  "Henry",
  "Frieda",
];
const lastNames = [
  "Schmidt",
  "Müller",
  "Meyer",
  "Weber",
  "Wagner",
  "Becker",
  "Schulz",
  "Hoffmann",
  "Koch",
  "Richter",
  "Klein",
  "Wolf",
  "Neumann",
  "Schwarz",
  "Braun",
  "Zimmermann",
  "Krüger",
  "Hartmann",
  "Lange",
  "Werner",
  "Krause",
  "Lehmann",
  "Köhler",
  "Herrmann",
  "König",
  "Walter",
  "Mayer",
  "Huber",
  "Kaiser",
  "Fuchs",
  "Peters",
  "Lang",
  "Scholz",
  "Möller",
  "Weiß",
  "Jung",
  "Hahn",
  "Vogel",
  "Friedrich",
  "Keller",
];
const tagNames = [
  "vip",
  "newsletter",
  "customer",
  "lead",
  "berlin",
  "event-2026",
  "b2b",
  "wholesale",
  "returning",
  "trial",
];
const cities = [
  "Berlin",
  "Hamburg",
  "München",
  "Köln",
  "Frankfurt",
  "Stuttgart",
  "Leipzig",
  "Dresden",
];
const prefixes = ["151", "152", "157"];

export interface GeneratedContact {
  phone: string;
  first_name: string;
  last_name: string;
  email: string;
  tags: string[];
  opt_in_status: "opted_in" | "not_set" | "opted_out";
  city: string;
}

/** The i-th generated contact (0-based). */
export function generatedContact(i: number): GeneratedContact {
  const first = firstNames[i % firstNames.length] ?? "Anna";
  const last = lastNames[Math.floor(i / firstNames.length) % lastNames.length] ?? "Schmidt";
  const tags = [tagNames[i % tagNames.length] ?? "vip"];
  if (i % 3 === 0) tags.push(tagNames[(i * 7 + 3) % tagNames.length] ?? "lead");
  const status = i % 20 === 0 ? "opted_out" : i % 4 === 0 ? "not_set" : "opted_in";
  return {
    phone: `+49${prefixes[i % 3]}${String(10_000_000 + Math.floor(i / 3)).padStart(8, "0")}`,
    first_name: first,
    last_name: last,
    email: `${first}.${last}${i}@example.com`
      .toLowerCase()
      .replace(/ä/g, "ae")
      .replace(/ö/g, "oe")
      .replace(/ü/g, "ue")
      .replace(/ß/g, "ss"),
    tags: [...new Set(tags)],
    opt_in_status: status,
    city: cities[i % cities.length] ?? "Berlin",
  };
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * A CSV of `rows` generated contacts (from the `start`-th on) in the import's layout (with a
 * custom.city column).
 */
export function generatedCsv(rows: number, start = 0): Buffer {
  const parts: string[] = [`${exportHeader(["city"]).join(",")}\n`];
  for (let i = start; i < start + rows; i++) {
    const c = generatedContact(i);
    const row = exportRow(
      {
        phone: c.phone,
        first_name: c.first_name,
        last_name: c.last_name,
        email: c.email,
        tags: c.tags,
        custom_fields: { city: c.city },
        opt_in_status: c.opt_in_status,
        opt_in_source: null,
        opted_in_at: null,
        opted_out_at: null,
      },
      ["city"],
    );
    parts.push(`${row.map(csvCell).join(",")}\n`);
  }
  return Buffer.from(parts.join(""));
}
