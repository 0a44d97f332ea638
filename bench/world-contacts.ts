// The import benchmark's file, shaped as the issue describes the one a new user tried: names and
// emails from many countries, phones of many countries in random order, about 0.5% bad phones.
// A file in phone order would flatter every B-tree (the bare upsert's included): each insert
// would land beside the last one instead of anywhere in the index.
import { exportHeader, exportRow } from "../src/contract/contact-csv.js";

interface Country {
  /** Leading digits of valid mobile numbers (each checked with libphonenumber). */
  prefixes: string[];
  /** Digits after a prefix. */
  digits: number;
  first: string[];
  last: string[];
  cities: string[];
}

const countries: Country[] = [
  {
    prefixes: ["+49151", "+49176"],
    digits: 8,
    first: ["Anna", "Jürgen", "Lena", "Max"],
    last: ["Müller", "Weiß", "Schmidt", "Köhler"],
    cities: ["Berlin", "München"],
  },
  {
    prefixes: ["+3366", "+3367"],
    digits: 7,
    first: ["Zoé", "Hélène", "François", "Loïc"],
    last: ["Lefèvre", "Dubois", "Bénard", "Moreau"],
    cities: ["Paris", "Lyon"],
  },
  {
    prefixes: ["+44740", "+44781"],
    digits: 7,
    first: ["Oliver", "Siobhan", "Amelia", "Rhys"],
    last: ["Smith", "O'Brien", "Jones", "Taylor"],
    cities: ["London", "Cardiff"],
  },
  {
    prefixes: ["+346"],
    digits: 8,
    first: ["José", "María", "Iñaki", "Lucía"],
    last: ["García", "Muñoz", "Fernández", "López"],
    cities: ["Madrid", "A Coruña"],
  },
  {
    prefixes: ["+39347"],
    digits: 7,
    first: ["Giulia", "Niccolò", "Francesca", "Matteo"],
    last: ["Rossi", "D'Angelo", "Bianchi", "Esposito"],
    cities: ["Roma", "Milano"],
  },
  {
    prefixes: ["+3161", "+3162"],
    digits: 7,
    first: ["Daan", "Sanne", "Bram", "Fenna"],
    last: ["de Vries", "van den Berg", "Jansen", "Bakker"],
    cities: ["Amsterdam", "Utrecht"],
  },
  {
    prefixes: ["+55119"],
    digits: 8,
    first: ["João", "Conceição", "Luíza", "Thiago"],
    last: ["Silva", "Gonçalves", "Araújo", "Souza"],
    cities: ["São Paulo", "Campinas"],
  },
  {
    prefixes: ["+9198"],
    digits: 8,
    first: ["Priya", "Arjun", "Ananya", "Rohan"],
    last: ["Sharma", "Patel", "Iyer", "Reddy"],
    cities: ["Mumbai", "Bengaluru"],
  },
  {
    prefixes: [
      "+1415555",
      "+1415876",
      "+1212555",
      "+1646555",
      "+1312555",
      "+1617555",
      "+1305555",
      "+1206555",
      "+1512555",
      "+1702555",
    ],
    digits: 4,
    first: ["Emily", "Jackson", "Madison", "Tyler"],
    last: ["Johnson", "Williams", "Nguyen", "Brown"],
    cities: ["San Francisco", "New York"],
  },
  {
    prefixes: ["+5255"],
    digits: 8,
    first: ["Ximena", "Andrés", "Guadalupe", "Santiago"],
    last: ["Hernández", "Martínez", "Ramírez", "Pérez"],
    cities: ["Ciudad de México", "Puebla"],
  },
  {
    prefixes: ["+90532"],
    digits: 7,
    first: ["Çağla", "Emre", "Şule", "Oğuz"],
    last: ["Yılmaz", "Öztürk", "Kaya", "Doğan"],
    cities: ["İstanbul", "Ankara"],
  },
  {
    prefixes: ["+4851"],
    digits: 7,
    first: ["Łukasz", "Zofia", "Wojciech", "Małgorzata"],
    last: ["Kowalski", "Wiśniewska", "Wójcik", "Nowak"],
    cities: ["Warszawa", "Kraków"],
  },
  {
    prefixes: ["+7916"],
    digits: 7,
    first: ["Мария", "Иван", "Ольга", "Дмитрий"],
    last: ["Иванова", "Смирнов", "Попова", "Кузнецов"],
    cities: ["Москва", "Казань"],
  },
];

const tagNames = ["vip", "newsletter", "customer", "lead", "event-2026", "b2b", "returning"];

/** Latin letters for an email's local part: accents dropped, other scripts numbered. */
function emailName(name: string): string {
  const plain = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ł/g, "l")
    .replace(/ı/g, "i")
    .toLowerCase()
    .replace(/[^a-z]/g, "");
  return plain === "" ? "contact" : plain;
}

/** A permutation of 0..n-1 from a seeded generator (xorshift32), the same in every run. */
function shuffled(n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let state = 0x9e3779b9;
  for (let i = n - 1; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const j = (state >>> 0) % (i + 1);
    const swap = order[i] ?? 0;
    order[i] = order[j] ?? 0;
    order[j] = swap;
  }
  return order;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** The i-th contact's CSV cells; every 200th has a phone no country has (a row error). */
function contactRow(i: number): string[] {
  const country = countries[i % countries.length] as Country;
  const n = Math.floor(i / countries.length);
  const prefix = country.prefixes[n % country.prefixes.length] as string;
  const number = String(Math.floor(n / country.prefixes.length)).padStart(country.digits, "0");
  const first = country.first[n % country.first.length] as string;
  const last = country.last[Math.floor(n / country.first.length) % country.last.length] as string;
  const tags = [tagNames[i % tagNames.length] as string];
  if (i % 3 === 0) tags.push(tagNames[(i * 5 + 2) % tagNames.length] as string);
  return exportRow(
    {
      phone: i % 200 === 199 ? `+999${String(i).padStart(9, "0")}` : `${prefix}${number}`,
      first_name: first,
      last_name: last,
      email: `${emailName(first)}.${emailName(last)}${i}@example.com`,
      tags: [...new Set(tags)],
      custom_fields: { city: country.cities[i % country.cities.length] as string },
      opt_in_status: i % 20 === 0 ? "opted_out" : i % 4 === 0 ? "not_set" : "opted_in",
      opt_in_source: null,
      opted_in_at: null,
      opted_out_at: null,
    },
    ["city"],
  );
}

/** A CSV of `rows` contacts from thirteen countries in random order, in the import's layout. */
export function worldCsv(rows: number): Buffer {
  const parts: string[] = [`${exportHeader(["city"]).join(",")}\n`];
  for (const i of shuffled(rows)) parts.push(`${contactRow(i).map(csvCell).join(",")}\n`);
  return Buffer.from(parts.join(""));
}
