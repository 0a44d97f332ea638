import { z } from "zod";
import { errorCodes } from "./errors.js";

/** One field-level problem in a 422 (or a rule-level one for templates). */
export const ErrorDetail = z
  .object({
    field: z.string().describe("Dotted path of the offending field, e.g. `components.1.text`."),
    message: z.string(),
    rule: z
      .string()
      .optional()
      .describe(
        "Template validation only: the rule the field breaks, e.g. `button_text_length` (see the template rules in the API docs).",
      ),
    limit: z
      .number()
      .int()
      .optional()
      .describe("plan_limit_exceeded only: the plan's ceiling for the feature named by `field`."),
    used: z
      .number()
      .int()
      .optional()
      .describe("plan_limit_exceeded only: how much of that feature is in use."),
    promised: z
      .number()
      .int()
      .optional()
      .describe(
        "plan_limit_exceeded of `messages_per_month` only: messages the workspace's running campaigns are still to send, counted against the quota beside `used`.",
      ),
    requested: z
      .number()
      .int()
      .optional()
      .describe(
        "plan_limit_exceeded only, when the refused action needed more than one: how many (a campaign's messages).",
      ),
  })
  .meta({ id: "ErrorDetail" });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** The body of every error response. */
export const ErrorBody = z
  .object({
    status: z.literal("error"),
    message: z.string(),
    error_code: z.enum(errorCodes as [string, ...string[]]),
    details: z.array(ErrorDetail).optional(),
  })
  .meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Wraps a data schema and a meta schema in the success envelope. */
export function successEnvelope<D extends z.ZodType, M extends z.ZodType>(data: D, meta: M) {
  return z.object({ status: z.literal("success"), data, meta });
}

/** Something a write did differently from what was asked, and why (the write itself succeeded). */
export const Notice = z
  .object({
    field: z.string().describe("The field concerned, e.g. `opt_in_status`."),
    message: z.string(),
  })
  .meta({ id: "Notice" });
export type Notice = z.infer<typeof Notice>;

/** `meta` for endpoints that carry nothing in it. */
export const EmptyMeta = z.object({}).strict();
