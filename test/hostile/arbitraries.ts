import fc from "fast-check";
import type { Endpoint, OpenApiDocument } from "../helpers/openapi-conformance.js";

/** One request as `app.inject()` takes it, and a note of what was made hostile. */
export interface HostileRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Strings that have broken parsers, query builders and templates somewhere. */
export const injectionStrings = [
  "' OR '1'='1",
  "'; DROP TABLE contacts; --",
  '" OR ""="',
  "1; SELECT * FROM tokens",
  "ws_' UNION SELECT token_hash FROM tokens --",
  "%' OR 1=1 --",
  "\\",
  "*",
  "%",
  "_",
  "NEAR(a b)",
  '"unterminated',
  "{{7*7}}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  "${7*7}",
  "<script>alert(1)</script>",
  "../../../../etc/passwd",
  "..",
  ".",
  "%00",
  "\u0000",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "$where",
  '{"$gt":""}',
  "=cmd|' /C calc'!A0",
  "\r\nSet-Cookie: x=1",
  "a\u202Eb",
  "\u200B\u200C\u200D\uFEFF",
  "Ａｄｍｉｎ",
  "e\u0301\u0301\u0301\u0301",
  "😀👍🏽‍♀️",
  "\uD800",
  "\uDFFF\uD800",
  "𝕏".repeat(300),
];

/** Paging and number-ish values that are not what a list accepts. */
export const badNumbers = [
  "0",
  "-1",
  "101",
  "1.5",
  "1e3",
  "1e309",
  "9007199254740993",
  "99999999999999999999999",
  "NaN",
  "Infinity",
  "-0",
  "0x10",
  " 1",
  "1 ",
  "",
  "٣",
  "true",
  "[]",
];

/** Percent-escapes that do not decode to UTF-8, sent raw in the URL. */
export const badEscapes = ["%", "%zz", "%E0%A4%A", "%C0%AF", "%FF", "%00", "%2e%2e", "%2F"];

/**
 * The escapes a path parameter is sent with; those that do not decode have a test of their own
 * in hostile-input.test.ts.
 */
export const pathEscapes = ["%00", "%2e%2e", "%2F", "%20", "%0A"];

const oddUnicode = fc.string({ unit: "binary", minLength: 1, maxLength: 40 });

/** Huge strings: long enough to trip limits, not so long that a run takes minutes. */
const hugeString = fc
  .tuple(
    fc.constantFrom("x", "é", "😀", "a,b\n", "\u0000"),
    fc.constantFrom(513, 1025, 4097, 65_537),
  )
  .map(([unit, n]) => unit.repeat(n));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...injectionStrings) },
  { weight: 2, arbitrary: oddUnicode },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

/** JSON nested `depth` deep, written out as text. */
export function nestedJson(open: "[" | '{"a":', depth: number): string {
  return `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`;
}

/** Deeply nested JSON; bodies far deeper have a test of their own in hostile-input.test.ts. */
export const deepJson = fc
  .tuple(fc.constantFrom("[" as const, '{"a":' as const), fc.integer({ min: 50, max: 1000 }))
  .map(([open, depth]) => nestedJson(open, depth));

/** A value of a type the field does not take, or a string it will not like. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  hostileString,
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 5 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** What a `csv` field may be sent as: not base64, base64 of garbage, CSVs that are wrong. */
export const hostileCsv: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "!!!!not base64!!!!",
    "====",
    "YQ",
    "Y",
    " ",
    "\u00e9\u00e9\u00e9\u00e9",
    "data:text/csv;base64,cGhvbmUKKzQ5MTUxMTIzNDU2Nzg=",
    "cGhvbmUKKzQ5MTUxMTIzNDU2Nzg=\n\n",
    "-_-_",
  ),
  hostileString,
  fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((b) => Buffer.from(b).toString("base64")),
  fc
    .constantFrom(
      "",
      "\n\n\n",
      "first_name\nAda\n",
      "phone\n",
      "phone,phone\n+4915112345678,+4915112345679\n",
      'phone\n"unterminated\n',
      "phone;first_name\n+4915112345678;Ada\n",
      'PHONE , First_Name\n=HYPERLINK("x"),@SUM(1)\n',
      'phone,tags\n+4915112345678,"a,b,c"\n',
      "\uFEFFphone\r\n+4915112345678\r\n",
      `${"phone\n+4915112345678\n".repeat(3)}\u0000\u0001\u0002`,
      "phone,custom.\n+4915112345678,x\n",
      "phone,opt_in_status\n+4915112345678,maybe\n",
    )
    .map((text) => Buffer.from(text).toString("base64")),
  fc.constant(Buffer.from("phone\n+4915112345678\n", "utf16le").toString("base64")),
);

export const contentTypes = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/octet-stream",
  "application/vnd.api+json",
  "application/json; charset=latin1",
  "application/json; charset=utf-16le",
  "",
];

/** Bodies that are not (acceptable) JSON, sent as application/json. */
export const rawBodies: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    '{"a":',
    "[1,2",
    "nul",
    "NaN",
    "1e999999",
    '"just a string"',
    "[]",
    "42",
    "true",
    "\uFEFF{}",
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":1,"a":2}',
    "{'single':'quotes'}",
    '{"trailing":1,}',
    "\u0000",
    "<xml/>",
    "phone=%2B4915112345678",
  ),
  deepJson,
  fc.string({ unit: "binary", maxLength: 200 }),
);

/** Percent-encodes a string for a URL; lone surrogates (not expressible in UTF-8) become U+FFFD. */
export function encode(text: string): string {
  return encodeURIComponent(text.replace(/\p{Surrogate}/gu, "\uFFFD"));
}

/** The body schema's top-level property names, `$ref`s resolved. */
export function bodyProperties(document: OpenApiDocument, endpoint: Endpoint): string[] {
  const schema = resolve(
    document,
    endpoint.operation.requestBody?.content?.["application/json"]?.schema,
  );
  return Object.keys((schema as { properties?: object } | undefined)?.properties ?? {});
}

function resolve(document: OpenApiDocument, schema: unknown): unknown {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (!ref) return schema;
  const name = ref.replace("#/components/schemas/", "");
  return resolve(document, document.components?.schemas?.[name]);
}

/**
 * A body that follows the schema's shape loosely (required fields present with values of the
 * right type), for endpoints that have no hand-written valid body: mutations start from it.
 */
export function sampleBody(document: OpenApiDocument, schema: unknown, depth = 0): unknown {
  const s = resolve(document, schema) as Record<string, unknown> | undefined;
  if (!s || depth > 5) return {};
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const options = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (options?.[0]) return sampleBody(document, options[0], depth + 1);
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case "string":
      return s.format === "email" ? "someone@example.test" : "sample";
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default: {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(
        required.map((key) => [key, sampleBody(document, properties[key], depth + 1)]),
      );
    }
  }
}
