import { readFile } from "node:fs/promises";
import { buttonTypes } from "../../../contract/template-rules.js";
import { usageError } from "../../cli-error.js";
import type { Context } from "../../context.js";
import { cannotRead } from "../../input-file.js";
import { flagName, listOption, requiredString, requireFlags, stringOption } from "../../options.js";
import { readStdin } from "../../read-stdin.js";

type Options = Readonly<Record<string, unknown>>;
type Json = Record<string, unknown>;

/** Fields of a template record the service sets; a file saved from `templates get --json` has them. */
const serviceFields = [
  "id",
  "workspace_id",
  "status",
  "rejection_reason",
  "rejection_detail",
  "created_at",
  "updated_at",
  "submitted_at",
  "reviewed_at",
] as const;

/**
 * Reads a template file (`-` for stdin). A file that cannot be read or is not JSON is a usage
 * error (exit 2): no template to check yet, as the service answers such a body 400, not 422.
 * Fields the service sets (from `templates get --json`) are dropped, so a saved template can be
 * edited and created again.
 */
export async function readTemplateFile(ctx: Context, path: string): Promise<unknown> {
  let text: string;
  try {
    text = path === "-" ? await readStdin(ctx.io.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw cannotRead(`'${path}'`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw usageError(
      `'${path}' is not valid JSON: ${(error as Error).message}`,
      "A template file is one JSON object in the WhatsApp Cloud API's shapes (see `reseller templates create --help`).",
    );
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const copy: Json = { ...(value as Json) };
    for (const field of serviceFields) delete copy[field];
    value = copy;
  }
  return value;
}

/** Flags that define a template; none may be mixed with --file. */
const definitionFlags = [
  "name",
  "category",
  "language",
  "body",
  "example",
  "header",
  "headerExample",
  "footer",
  "button",
] as const;

/** The definition flags given on the command line. */
export function givenDefinitionFlags(options: Options): string[] {
  return definitionFlags
    .filter((key) => {
      const value = options[key];
      return Array.isArray(value) ? value.length > 0 : value !== undefined;
    })
    .map(flagName);
}

const specForms =
  "QUICK_REPLY:<text>, URL:<text>:<url>[|<example>], PHONE_NUMBER:<text>:<+E164>, COPY_CODE:<code> or OTP:<COPY_CODE|ONE_TAP|ZERO_TAP>[:<text>]";

/** Parses one `--button` SPEC into a WhatsApp button object. */
export function parseButtonSpec(spec: string): Json {
  const colon = spec.indexOf(":");
  const kind = (colon === -1 ? spec : spec.slice(0, colon)).trim().toUpperCase();
  const rest = colon === -1 ? "" : spec.slice(colon + 1);
  const bad = (form: string) =>
    usageError(
      `--button '${spec}' is not a ${kind} button: write ${form}.`,
      `Button SPECs: ${specForms}.`,
    );
  const [text = "", ...tail] = rest.split(":");
  const value = tail.join(":");
  switch (kind) {
    case "QUICK_REPLY":
      if (rest === "") throw bad("QUICK_REPLY:<text>");
      return { type: kind, text: rest };
    case "URL": {
      if (text === "" || value === "") throw bad("URL:<text>:<url>[|<example>]");
      const bar = value.lastIndexOf("|");
      return bar === -1
        ? { type: kind, text, url: value }
        : { type: kind, text, url: value.slice(0, bar), example: [value.slice(bar + 1)] };
    }
    case "PHONE_NUMBER":
      if (text === "" || value === "") throw bad("PHONE_NUMBER:<text>:<+E164>");
      return { type: kind, text, phone_number: value };
    case "COPY_CODE":
      if (rest === "") throw bad("COPY_CODE:<code>");
      return { type: kind, example: rest };
    case "OTP":
      return value === ""
        ? { type: kind, otp_type: text === "" ? "COPY_CODE" : text.toUpperCase() }
        : { type: kind, otp_type: text.toUpperCase(), text: value };
    default:
      throw usageError(
        `--button '${spec}': unknown button type '${kind}'; use one of ${buttonTypes.join(", ")}.`,
        `Button SPECs: ${specForms}.`,
      );
  }
}

/** A template built from flags, and which flag each part of it came from (for messages). */
export interface FlagTemplate {
  value: Json;
  /** Field path prefix → the flag that set it, longest prefixes first. */
  sources: [string, string][];
}

/** Builds a simple template from `--name --category --language --body …` flags. */
export function templateFromFlags(options: Options): FlagTemplate {
  const auth = stringOption(options, "category")?.trim().toLowerCase() === "authentication";
  requireFlags(options, ["name", "category", "language", ...(auth ? [] : ["body"])]);
  const name = requiredString(options, "name");
  const category = requiredString(options, "category");
  const language = requiredString(options, "language");
  const body = stringOption(options, "body");
  const components: Json[] = [];
  const sources: [string, string][] = [];
  const add = (component: Json, flag: string) => {
    sources.push([`components.${components.length}`, flag]);
    components.push(component);
  };

  const header = stringOption(options, "header");
  const headerExample = stringOption(options, "headerExample");
  if (header !== undefined) {
    add(
      {
        type: "HEADER",
        format: "TEXT",
        text: header,
        ...(headerExample === undefined ? {} : { example: { header_text: [headerExample] } }),
      },
      "--header",
    );
  } else if (headerExample !== undefined) {
    throw usageError("--header-example needs --header.");
  }
  const examples = listOption(options, "example");
  if (body === undefined) {
    add({ type: "BODY" }, "--body");
  } else {
    sources.push([`components.${components.length}.example`, "--example"]);
    add(
      {
        type: "BODY",
        text: body,
        ...(examples.length > 0 ? { example: { body_text: [examples] } } : {}),
      },
      "--body",
    );
  }
  const footer = stringOption(options, "footer");
  if (footer !== undefined) add({ type: "FOOTER", text: footer }, "--footer");
  const buttons = listOption(options, "button").map(parseButtonSpec);
  if (buttons.length > 0) {
    const at = components.length;
    buttons.forEach((_, j) => {
      sources.push([`components.${at}.buttons.${j}`, `--button #${j + 1}`]);
    });
    add({ type: "BUTTONS", buttons }, "--button");
  }
  sources.push(["name", "--name"], ["category", "--category"], ["language", "--language"]);
  sources.sort((a, b) => b[0].length - a[0].length);
  return { value: { name, category, language, components }, sources };
}

/** `components.1.text (--body)`: a problem's field with the flag it came from, when known. */
export function fieldWithFlag(field: string, sources: readonly [string, string][]): string {
  const source = sources.find(([prefix]) => field === prefix || field.startsWith(`${prefix}.`));
  return source ? `${field} (${source[1]})` : field;
}
