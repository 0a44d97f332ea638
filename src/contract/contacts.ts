import { z } from "zod";
import {
  contactLimits,
  customKeyProblem,
  emailPattern,
  invisibleCharacterIn,
  invisibleInEmail,
  tagProblem,
  uniqueTags,
} from "./contact-rules.js";
import { Notice, successEnvelope } from "./envelope.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import { checkE164, e164Hint } from "./phones.js";
import { timestampField } from "./timestamps.js";
import { optInStatuses } from "./vocabulary.js";

export const OptInStatus = z.enum(optInStatuses);
export type OptInStatus = z.infer<typeof OptInStatus>;

export const Contact = z
  .object({
    id: z.string(),
    phone: z.string().describe("E.164; unique within the workspace."),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    tags: z.array(z.string()),
    custom_fields: z.record(z.string(), z.string()),
    opt_in_status: OptInStatus,
    opt_in_source: z
      .string()
      .nullable()
      .describe(
        "Where the consent came from, e.g. `website form`; `api` or `import:<id>` by default.",
      ),
    opted_in_at: z.string().nullable().describe("When the contact last opted in."),
    opted_out_at: z.string().nullable().describe("When the contact last opted out."),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Contact" });
export type Contact = z.infer<typeof Contact>;

/** A text field of a contact: trimmed; an empty string or null clears it. */
function nameField(field: string) {
  return z
    .string({ error: `${field} must be a string or null` })
    .trim()
    .max(contactLimits.nameLength, {
      error: `${field} must be at most ${contactLimits.nameLength} characters`,
    })
    .nullable()
    .transform((v) => (v === "" ? null : v));
}

// Checked with the other fields, so one answer names every field that is wrong.
const phone = z
  .string({ error: `phone must be a string in ${e164Hint}` })
  .superRefine((value, ctx) => {
    const checked = checkE164(value);
    if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.message });
  })
  .describe(`The upsert key, in ${e164Hint}; must be a valid number for its country.`);

const email = z
  .string({ error: "email must be a string or null" })
  .trim()
  .max(contactLimits.emailLength, {
    error: `email must be at most ${contactLimits.emailLength} characters`,
  })
  .superRefine((v, ctx) => {
    if (v === "") return;
    const invisible = invisibleCharacterIn(v);
    if (invisible !== null) {
      ctx.addIssue({ code: "custom", message: invisibleInEmail("email", invisible) });
    } else if (!emailPattern.test(v)) {
      ctx.addIssue({
        code: "custom",
        message: "email must be an address such as anna@example.com",
      });
    }
  })
  .nullable()
  .transform((v) => (v === "" ? null : v));

const tags = z
  .array(z.string({ error: "each tag must be a string" }), {
    error: "tags must be a list of strings",
  })
  .max(contactLimits.tagsPerContact, {
    error: `a contact has at most ${contactLimits.tagsPerContact} tags`,
  })
  .transform((list, ctx) => {
    const unique = uniqueTags(list);
    for (const tag of unique) {
      const problem = tagProblem(tag);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }
    return unique;
  })
  .describe("Replaces the contact's tags; tags that do not exist yet are created.");

function customFields(nullRemoves: string) {
  return z
    .record(
      z.string(),
      z
        .string({ error: "custom field values must be strings (or null to remove the key)" })
        .max(contactLimits.customFieldValueLength, {
          error: `custom field values are at most ${contactLimits.customFieldValueLength} characters`,
        })
        .nullable(),
      { error: "custom_fields must be an object of string values" },
    )
    .superRefine(
      (record, ctx) => {
        const keys = Object.keys(record);
        if (keys.length > contactLimits.customFieldsPerContact) {
          ctx.addIssue({
            code: "custom",
            message: `at most ${contactLimits.customFieldsPerContact} custom fields`,
          });
        }
        for (const key of keys) {
          const problem = customKeyProblem(key);
          if (problem) ctx.addIssue({ code: "custom", message: problem, path: [key] });
        }
      },
      {
        // Also when a value is wrong: one answer names every bad key and value.
        when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value),
      },
    )
    .describe(`Merged into the contact's custom fields; ${nullRemoves}`);
}

const optInSource = z
  .string({ error: "opt_in_source must be a string or null" })
  .trim()
  .max(contactLimits.sourceLength, {
    error: `opt_in_source must be at most ${contactLimits.sourceLength} characters`,
  })
  .nullable()
  .transform((v) => (v === "" ? null : v))
  .describe("Where the consent came from (e.g. `checkout form`); recorded with the opt-in.");

const optedInAt = timestampField("opted_in_at", "2026-11-22T09:30:00Z").describe(
  "When consent was given, if not now; not in the future, and not before the contact's last opt-out when it opts them in.",
);

export const UpsertContactBody = z.strictObject({
  phone,
  first_name: nameField("first_name").optional(),
  last_name: nameField("last_name").optional(),
  email: email.optional(),
  tags: tags.optional(),
  custom_fields: customFields("a null value removes the key.").optional(),
  opt_in_status: z
    .enum(["opted_in", "not_set"], {
      error:
        "opt_in_status must be opted_in or not_set here; record an opt-out with PATCH …/contacts/<id>",
    })
    .optional()
    .describe(
      "opted_in or not_set. Omitted: not_set for a new contact, unchanged for an existing one (an upsert never silently re-subscribes or unsubscribes anyone).",
    ),
  opt_in_source: optInSource.optional(),
  opted_in_at: optedInAt.optional(),
});
export type UpsertContactBody = z.infer<typeof UpsertContactBody>;

export const UpdateContactBody = z.strictObject({
  first_name: nameField("first_name").optional(),
  last_name: nameField("last_name").optional(),
  email: email.optional(),
  tags: tags.optional(),
  custom_fields: customFields("a null value removes the key.").optional(),
  opt_in_status: z
    .enum(optInStatuses, { error: `opt_in_status must be one of ${optInStatuses.join(", ")}` })
    .optional(),
  opt_in_source: optInSource.optional(),
  opted_in_at: optedInAt.optional(),
});
export type UpdateContactBody = z.infer<typeof UpdateContactBody>;

export const ContactListQuery = PageQuery.extend({
  search: z
    .string()
    .max(200, { error: "search must be at most 200 characters" })
    .optional()
    .describe(
      "Words that must each start a word of the name, the email (or the whole address) or the phone's digits; any text is searched literally.",
    ),
  tag: z.string().max(contactLimits.tagLength).optional().describe("Only contacts with this tag."),
  opt_in_status: z
    .enum(optInStatuses, { error: `opt_in_status must be one of ${optInStatuses.join(", ")}` })
    .optional()
    .describe("Only contacts with this consent status."),
});
export type ContactListQuery = z.infer<typeof ContactListQuery>;

export const ContactParams = z.object({
  id: z.string().describe("The workspace's id."),
  contact_id: z.string().describe("The contact's id (`ct_…`)."),
});

export const ContactMeta = z
  .object({
    notices: z
      .array(Notice)
      .optional()
      .describe(
        "Present when part of the change was not applied: an upsert saying `opted_in` or `not_set` leaves a contact who opted out as it is.",
      ),
  })
  .strict();

export const ContactResponse = successEnvelope(Contact, ContactMeta);
export const ContactListResponse = listEnvelope(Contact);

export const Tag = z
  .object({
    name: z.string(),
    contact_count: z.number().int().min(0),
    created_at: z.string(),
  })
  .meta({ id: "Tag" });
export type Tag = z.infer<typeof Tag>;

export const TagListResponse = listEnvelope(Tag);
