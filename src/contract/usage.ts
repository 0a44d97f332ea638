import { z } from "zod";
import { successEnvelope } from "./envelope.js";
import { PageQuery, Pagination } from "./pagination.js";
import { WorkspacePlan } from "./workspaces.js";

const Count = z.number().int().min(0);

export const MessageCounts = z
  .object({ sent: Count, delivered: Count, read: Count, failed: Count })
  .meta({ id: "MessageCounts" });
export type MessageCounts = z.infer<typeof MessageCounts>;

/** Message counts per template category plus their sum. */
export const MessagesByCategory = z
  .object({
    marketing: MessageCounts,
    utility: MessageCounts,
    authentication: MessageCounts,
    total: MessageCounts,
  })
  .meta({ id: "MessagesByCategory" });
export type MessagesByCategory = z.infer<typeof MessagesByCategory>;

export const WorkspaceMonthUsage = z
  .object({
    workspace_id: z.string(),
    workspace_name: z.string(),
    status: z.string(),
    plan: WorkspacePlan.nullable(),
    messages: MessagesByCategory.describe(
      "Messages sent or failed in the month (a campaign across a month's end is split), by the template's category; delivered and read count the latest state.",
    ),
    contacts: Count.describe("Contacts at the month's end (now for the current month)."),
    active_templates: Count.describe(
      "Templates approved at the month's end (now for the current month): one paused or disabled then, or approved since, is not counted.",
    ),
  })
  .meta({ id: "WorkspaceMonthUsage" });
export type WorkspaceMonthUsage = z.infer<typeof WorkspaceMonthUsage>;

export const UsageQuery = PageQuery.extend({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: "month must be YYYY-MM, e.g. 2026-11" })
    .optional()
    .describe(
      "The calendar month (UTC) as YYYY-MM; default the current one; one still to come is a 422.",
    ),
});

export type UsageQuery = z.infer<typeof UsageQuery>;

export const UsageMeta = z
  .object({
    pagination: Pagination,
    month: z.string(),
    totals: z
      .object({
        workspaces: Count,
        messages: MessagesByCategory,
        contacts: Count,
        active_templates: Count,
      })
      .describe("Over every workspace of the report, not only this page's."),
  })
  .meta({ id: "UsageMeta" });
export type UsageMeta = z.infer<typeof UsageMeta>;

export const UsageResponse = successEnvelope(z.array(WorkspaceMonthUsage), UsageMeta);
