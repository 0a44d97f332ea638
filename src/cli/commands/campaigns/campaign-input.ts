import type { Audience, CreateCampaignBody } from "../../../contract/campaigns.js";
import { customKeyProblem, isVariableField } from "../../../contract/contact-rules.js";
import { readTimestamp } from "../../../contract/timestamps.js";
import { contactVariableFields } from "../../../contract/vocabulary.js";
import { usageError } from "../../cli-error.js";
import { booleanOption, listOption, requireFlags, stringOption } from "../../options.js";

type Options = Readonly<Record<string, unknown>>;

const required = [
  ["name", "--name"],
  ["channel", "--channel"],
  ["template", "--template"],
  ["language", "--language"],
] as const;

/** The fields a variable may name, as messages list them. */
export const variableFieldList = `${contactVariableFields.join(", ")} or custom.<key>`;

/** Exactly one of --all, --tag T… or --contacts ID,…; a usage error naming them otherwise. */
export function audienceFrom(options: Options): Audience {
  const all = booleanOption(options, "all");
  const tags = listOption(options, "tag")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const contacts = listOption(options, "contacts")
    .flatMap((value) => value.split(","))
    .map((id) => id.trim())
    .filter((id) => id !== "");
  const given = [all, tags.length > 0, contacts.length > 0].filter(Boolean).length;
  const tagsGiven = listOption(options, "tag").length > 0;
  const contactsGiven = listOption(options, "contacts").length > 0;
  if (given !== 1 || (tagsGiven && tags.length === 0) || (contactsGiven && contacts.length === 0)) {
    throw usageError(
      given > 1
        ? "Give only one audience: --all, --tag or --contacts, not several."
        : "Give exactly one audience: --all, --tag T (repeatable) or --contacts ID,… .",
      "For example `--all`, `--tag vip --tag gold` (contacts with any of them) or `--contacts ct_01A,ct_01B`.",
    );
  }
  if (all) return { all: true };
  if (tags.length > 0) return { tags: [...new Set(tags)] };
  return { contact_ids: [...new Set(contacts)] };
}

/**
 * `--var 1=custom.order --var header.1=first_name --var button.0=custom.order` as
 * `{"1": "custom.order", "header.1": "first_name", "button.0": "custom.order"}`.
 */
export function variableMappingFrom(options: Options): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const given of listOption(options, "var")) {
    const match = /^\s*(?:\{\{\s*)?(\d+|header\.\d+|button\.\d+)(?:\s*\}\})?\s*=\s*(.*?)\s*$/.exec(
      given,
    );
    const number = match?.[1];
    const field = match?.[2] ?? "";
    if (!match || number === undefined || !/^([1-9]\d*|header\.1|button\.\d)$/.test(number)) {
      throw usageError(
        `--var '${given}' is not n=field: n is the variable's number (1, 2, …), header.1 for a header {{1}} that differs from the body's, or button.<index> for a URL or COPY_CODE button.`,
        "For example --var 1=first_name --var 2=custom.city --var button.0=custom.order_id.",
      );
    }
    if (!isVariableField(field)) {
      // A custom key that breaks the contact's key rule says which rule.
      const keyProblem = field.startsWith("custom.")
        ? customKeyProblem(field.slice("custom.".length))
        : null;
      throw usageError(
        `--var '${given}': the field must be ${variableFieldList}; got '${field}'${keyProblem ? ` (${keyProblem})` : ""}.`,
      );
    }
    const earlier = mapping[number];
    if (earlier !== undefined && earlier !== field) {
      throw usageError(`--var gives {{${number}}} twice: ${earlier} and ${field}.`);
    }
    mapping[number] = field;
  }
  return mapping;
}

/** --schedule as the wire wants it (UTC, seconds), checked to be ISO 8601 and in the future. */
export function scheduleFrom(options: Options, now: Date): string | undefined {
  const given = stringOption(options, "schedule");
  if (given === undefined) return undefined;
  const read = readTimestamp(given.trim());
  if (read.problem === "no-time-zone") {
    throw usageError(
      `--schedule '${given}' has no time zone.`,
      "Add Z for UTC or an offset, e.g. 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00.",
    );
  }
  if (read.problem === "not-a-real-time") {
    throw usageError(`--schedule '${given}' is not a real date and time.`);
  }
  if (read.iso === undefined) {
    throw usageError(
      `--schedule expects an ISO 8601 date and time, e.g. 2026-12-01T09:00:00Z; got '${given}'.`,
    );
  }
  if (Date.parse(read.iso) <= now.getTime()) {
    throw usageError(
      `--schedule must be in the future; ${read.iso} has passed.`,
      "Leave --schedule out to create a draft and launch it with `reseller campaigns launch`.",
    );
  }
  return read.iso;
}

/** The create body from the flags, every check made before any request (usage errors). */
export function campaignBodyFromFlags(options: Options, now: Date): CreateCampaignBody {
  requireFlags(
    options,
    required.map(([key]) => key),
    "A campaign needs --name, --channel, --template and --language, and one audience flag.",
  );
  const value = (key: string) => (stringOption(options, key) ?? "").trim();
  const audience = audienceFrom(options);
  const mapping = variableMappingFrom(options);
  const scheduledAt = scheduleFrom(options, now);
  return {
    name: value("name"),
    channel_id: value("channel"),
    template_name: value("template"),
    template_language: value("language"),
    audience,
    variable_mapping: mapping,
    ...(scheduledAt === undefined ? {} : { scheduled_at: scheduledAt }),
  };
}
