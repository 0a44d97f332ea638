import { z } from "zod";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import { buttonTypes, headerFormats, otpTypes, templateLimits } from "./template-rules.js";
import {
  templateCategories,
  templateRejectionReasons,
  templateReviewDecisions,
  templateStatuses,
} from "./vocabulary.js";

export const TemplateStatus = z.enum(templateStatuses);
export type TemplateStatus = z.infer<typeof TemplateStatus>;
export const TemplateCategory = z.enum(templateCategories);
export type TemplateCategory = z.infer<typeof TemplateCategory>;
export const RejectionReason = z.enum(templateRejectionReasons, {
  error: `reason must be one of ${templateRejectionReasons.join(", ")}`,
});
export type RejectionReason = z.infer<typeof RejectionReason>;

// Components as the service stores and answers them: the normalised output of checkTemplate
// (template-rules.ts), which is where the rules live. These schemas describe, they do not judge.

const HeaderComponent = z
  .object({
    type: z.literal("HEADER"),
    format: z.enum(headerFormats),
    text: z
      .string()
      .optional()
      .describe(
        `TEXT only; at most ${templateLimits.headerTextMax} characters, at most one variable.`,
      ),
    example: z
      .object({
        header_text: z
          .array(z.string())
          .optional()
          .describe("The example value of the header's variable."),
        header_handle: z
          .array(z.string())
          .optional()
          .describe("IMAGE, VIDEO, DOCUMENT: one example media handle or URL."),
      })
      .optional(),
  })
  .meta({ id: "TemplateHeader" });

const BodyComponent = z
  .object({
    type: z.literal("BODY"),
    text: z
      .string()
      .optional()
      .describe(
        `At most ${templateLimits.bodyTextMax} characters; absent in an authentication template (WhatsApp supplies it).`,
      ),
    example: z
      .object({
        body_text: z
          .array(z.array(z.string()))
          .describe('One row of values, one per variable: [["Ada", "A-1042"]].'),
      })
      .optional(),
    add_security_recommendation: z.boolean().optional().describe("Authentication only."),
  })
  .meta({ id: "TemplateBody" });

const FooterComponent = z
  .object({
    type: z.literal("FOOTER"),
    text: z
      .string()
      .optional()
      .describe(`At most ${templateLimits.footerTextMax} characters, no variables.`),
    code_expiration_minutes: z.number().int().optional().describe("Authentication only: 1 to 90."),
  })
  .meta({ id: "TemplateFooter" });

export const TemplateButton = z
  .object({
    type: z.enum(buttonTypes),
    text: z.string().optional().describe(`At most ${templateLimits.buttonTextMax} characters.`),
    url: z.string().optional().describe("URL buttons: at most one variable, {{1}}, at the end."),
    phone_number: z.string().optional().describe("PHONE_NUMBER buttons: E.164."),
    example: z
      .union([z.array(z.string()), z.string()])
      .optional()
      .describe("URL: [value of {{1}}]; COPY_CODE: the example code."),
    otp_type: z.enum(otpTypes).optional().describe("OTP buttons."),
    supported_apps: z
      .array(z.object({ package_name: z.string(), signature_hash: z.string() }))
      .optional()
      .describe("ONE_TAP and ZERO_TAP OTP buttons."),
  })
  .meta({ id: "TemplateButton" });

const ButtonsComponent = z
  .object({ type: z.literal("BUTTONS"), buttons: z.array(TemplateButton) })
  .meta({ id: "TemplateButtons" });

export const TemplateComponent = z
  .discriminatedUnion("type", [HeaderComponent, BodyComponent, FooterComponent, ButtonsComponent])
  .meta({ id: "TemplateComponent" });

export const Template = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    name: z.string().describe("Lowercase letters, digits and underscores; never changes."),
    category: TemplateCategory,
    language: z
      .string()
      .describe("Language code such as en or pt_BR; each language is its own template."),
    components: z.array(TemplateComponent),
    status: TemplateStatus,
    rejection_reason: RejectionReason.nullable().describe(
      "Set when the operator rejected the template.",
    ),
    rejection_detail: z
      .string()
      .nullable()
      .describe("The operator's explanation of a rejection, when it gave one."),
    created_at: z.string(),
    updated_at: z.string(),
    submitted_at: z.string().nullable().describe("When it went to review; null for a draft."),
    reviewed_at: z.string().nullable().describe("When the operator last decided about it."),
  })
  .meta({ id: "Template" });
export type Template = z.infer<typeof Template>;

/**
 * The create body. Field types are checked here; everything else (name format, categories,
 * component rules) by checkTemplate, which lists every problem with its rule in one 422.
 */
export const CreateTemplateBody = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .describe(
      `Lowercase letters, digits and underscores, at most ${templateLimits.nameMax} characters.`,
    ),
  category: z
    .string({ error: "category must be a string" })
    .describe(`One of ${templateCategories.join(", ")} (upper case accepted).`),
  language: z.string({ error: "language must be a string" }).describe("e.g. en, en_US, pt_BR."),
  components: z
    .array(z.unknown(), { error: "components must be an array" })
    .describe(
      "HEADER (at most one), BODY (exactly one), FOOTER, BUTTONS, in WhatsApp Cloud API shapes; see the Template schema and the template rules.",
    ),
  draft: z
    .boolean({ error: "draft must be true or false" })
    .default(false)
    .describe("Store as a draft instead of submitting for review."),
});
export type CreateTemplateBody = z.infer<typeof CreateTemplateBody>;

/** A filter's value in any case (`MARKETING`, as Meta writes it, as a template's create takes). */
const anyCase = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" ? value.toLowerCase() : value), schema);

export const TemplateListQuery = PageQuery.extend({
  status: anyCase(
    z.enum(templateStatuses, { error: `status must be one of ${templateStatuses.join(", ")}` }),
  )
    .optional()
    .describe("Only templates in this status (any case)."),
  category: anyCase(
    z.enum(templateCategories, {
      error: `category must be one of ${templateCategories.join(", ")}`,
    }),
  )
    .optional()
    .describe("Only templates of this category (any case)."),
  name: z
    .string()
    .min(1)
    .max(templateLimits.nameMax)
    .optional()
    .describe("Only templates of exactly this name."),
  language: z.string().min(1).max(20).optional().describe("Only templates of this language."),
});
export type TemplateListQuery = z.infer<typeof TemplateListQuery>;

export const WorkspaceTemplateParams = z.object({
  id: z.string().describe("The workspace's id."),
  template_id: z.string().describe("The template's id."),
});

export const TemplateIdParams = z.object({
  template_id: z.string().describe("The template's id."),
});

/** The sandbox operator's decision about a template. */
export const SandboxReviewBody = z.strictObject({
  decision: z
    .enum(templateReviewDecisions, {
      error: `decision must be one of ${templateReviewDecisions.join(", ")}`,
    })
    .describe("approve (pending or paused), reject (pending), pause (approved)."),
  reason: RejectionReason.optional().describe("Required with reject; not accepted otherwise."),
  detail: z
    .string()
    .max(500)
    .optional()
    .describe("Reject only: an explanation kept in rejection_detail."),
});
export type SandboxReviewBody = z.infer<typeof SandboxReviewBody>;

export const DeletedTemplate = z
  .object({ id: z.string(), name: z.string(), language: z.string(), deleted: z.literal(true) })
  .meta({ id: "DeletedTemplate" });

export const TemplateResponse = successEnvelope(Template, EmptyMeta);
export const TemplateListResponse = listEnvelope(Template);
export const DeletedTemplateResponse = successEnvelope(DeletedTemplate, EmptyMeta);
