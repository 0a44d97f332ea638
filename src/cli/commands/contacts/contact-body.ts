import { customKeyProblem, tagProblem } from "../../../contract/contact-rules.js";
import { UpdateContactBody } from "../../../contract/contacts.js";
import { normaliseTimestamp } from "../../../contract/timestamps.js";
import { usageError } from "../../cli-error.js";
import { listOption, stringOption } from "../../options.js";
import { contactFieldFlags } from "./contact-flags.js";

type Options = Readonly<Record<string, unknown>>;

/**
 * The contact fields given as flags, as the API's body: only what was given, checked here so
 * a bad value is a usage error before any request.
 */
export function contactFields(options: Options): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, field] of [
    ["firstName", "first_name"],
    ["lastName", "last_name"],
    ["email", "email"],
    ["optInSource", "opt_in_source"],
  ] as const) {
    const value = stringOption(options, flag);
    if (value !== undefined) body[field] = value;
  }
  const tags = listOption(options, "tag").map((t) => t.trim());
  for (const tag of tags) {
    const problem = tagProblem(tag);
    if (problem) throw usageError(`--tag: ${problem}.`);
  }
  if (tags.length > 0) body.tags = tags;
  const fields: Record<string, string | null> = {};
  for (const pair of listOption(options, "field")) {
    const at = pair.indexOf("=");
    if (at < 1)
      throw usageError(`--field expects key=value, e.g. --field city=Berlin; got '${pair}'.`);
    const key = pair.slice(0, at).trim();
    const problem = customKeyProblem(key);
    if (problem) throw usageError(`--field: ${problem}.`);
    fields[key] = pair.slice(at + 1);
  }
  for (const given of listOption(options, "removeField")) {
    const key = given.trim();
    const problem = customKeyProblem(key);
    if (problem) throw usageError(`--remove-field: ${problem}.`);
    // Both for one key would drop the value given: which one was meant is not ours to guess.
    if (fields[key] !== undefined) {
      throw usageError(
        `--field ${key}=… and --remove-field ${key} contradict each other.`,
        "Give one of them.",
      );
    }
    fields[key] = null;
  }
  if (Object.keys(fields).length > 0) body.custom_fields = fields;
  const optIn = stringOption(options, "optIn");
  if (optIn !== undefined) body.opt_in_status = optIn;
  const optedInAt = stringOption(options, "optedInAt");
  if (optedInAt !== undefined) {
    if (normaliseTimestamp(optedInAt) === null) {
      throw usageError(
        `--opted-in-at expects an ISO 8601 time such as 2026-11-22T09:30:00Z; got '${optedInAt}'.`,
      );
    }
    body.opted_in_at = optedInAt;
  }
  // Each field by the service's own rule (contract/contacts.ts): a bad value is said of its flag
  // before any request, not as the service's field name after one.
  for (const [field, value] of Object.entries(body)) {
    const rule = UpdateContactBody.shape[field as keyof typeof UpdateContactBody.shape];
    const checked = rule?.safeParse(value);
    if (checked && !checked.success) {
      throw usageError(
        `${contactFieldFlags[field] ?? field}: ${checked.error.issues[0]?.message}.`,
      );
    }
  }
  return body;
}
