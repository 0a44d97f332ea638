import { z } from "zod";
import {
  contactLimits,
  emailPattern,
  invisibleCharacterIn,
  invisibleInEmail,
} from "./contact-rules.js";
import { EmptyMeta, successEnvelope } from "./envelope.js";
import { listEnvelope, PageQuery } from "./pagination.js";
import {
  campaignStatuses,
  optInStatuses,
  settableWorkspaceStatuses,
  templateStatuses,
  workspaceStatuses,
} from "./vocabulary.js";

export const WorkspaceStatus = z.enum(workspaceStatuses);
export type WorkspaceStatus = z.infer<typeof WorkspaceStatus>;

/** The plan a workspace is on, enough to name it; the catalogue has the rest. */
export const WorkspacePlan = z
  .object({ id: z.number().int(), name: z.string(), slug: z.string() })
  .meta({ id: "WorkspacePlan" });

export const Invitation = z
  .object({
    sent: z
      .boolean()
      .describe(
        "Whether the invitation reached its destination: the outbox, or the SMTP server when one is configured.",
      ),
    sent_at: z.string().nullable(),
  })
  .meta({ id: "Invitation" });

export const Workspace = z
  .object({
    id: z.string(),
    name: z.string(),
    contact_email: z.string(),
    plan_id: z.string().nullable().describe("The plan's id as a string; null without a plan."),
    plan: WorkspacePlan.nullable(),
    status: WorkspaceStatus,
    suspended_reason: z
      .string()
      .nullable()
      // Answers of services from before the field parse as null.
      .default(null)
      .describe(
        "Why the service suspended it: `trial_ended` when its trial passed; null otherwise.",
      ),
    trial_ends_at: z.string().nullable().describe("Set when the workspace started on a trial."),
    invitation: Invitation,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Workspace" });
export type Workspace = z.infer<typeof Workspace>;

const Count = z.number().int().min(0);

/** A status count that reads as 0 when a service from before the status left it out. */
const StatusCount = Count.default(0);

/** `{total, <value>: count…}` for one vocabulary of statuses. */
function countsOf<const S extends readonly string[]>(values: S) {
  const shape = Object.fromEntries(values.map((v) => [v, StatusCount])) as Record<
    S[number],
    typeof StatusCount
  >;
  return z.object({ total: Count, ...shape });
}

export const UsageLimit = z
  .object({
    key: z.string(),
    name: z.string(),
    type: z.enum(["limit", "quota"]),
    limit: z.number().int().describe("The plan's ceiling; -1 means unlimited."),
    used: Count,
  })
  .meta({ id: "UsageLimit" });
export type UsageLimit = z.infer<typeof UsageLimit>;

export const WorkspaceUsage = z
  .object({
    contacts: countsOf(optInStatuses).describe("Contacts in all and per opt-in status."),
    templates: countsOf(templateStatuses).describe("Templates in all and per status."),
    campaigns: countsOf(campaignStatuses).describe("Campaigns in all and per status."),
    messages_sent_this_month: Count.describe("Messages sent since the start of the UTC month."),
    limits: z
      .array(UsageLimit)
      .describe("Every limit or quota feature of the plan with how much of it is used."),
  })
  .meta({ id: "WorkspaceUsage" });
export type WorkspaceUsage = z.infer<typeof WorkspaceUsage>;

/** The single-workspace response: the record plus its usage. */
export const WorkspaceWithUsage = Workspace.extend({ usage: WorkspaceUsage }).meta({
  id: "WorkspaceWithUsage",
});
export type WorkspaceWithUsage = z.infer<typeof WorkspaceWithUsage>;

const name = z
  .string({ error: "name must be a string" })
  .trim()
  .min(1, { error: "name must not be empty" })
  .max(200, { error: "name must be at most 200 characters" });

export const CreateWorkspaceBody = z.strictObject({
  name: name.describe("Name of the workspace or client business."),
  contact_email: z
    .string({ error: "contact_email must be a string" })
    .trim()
    .max(contactLimits.emailLength, {
      error: `contact_email must be at most ${contactLimits.emailLength} characters`,
    })
    .refine((v) => invisibleCharacterIn(v) === null, {
      error: (issue) =>
        invisibleInEmail("contact_email", invisibleCharacterIn(String(issue.input)) ?? ""),
      abort: true,
    })
    .regex(emailPattern, {
      error: "contact_email must be an email address such as owner@example.com",
    })
    .describe("Primary contact; receives the invitation. Internationalised addresses are valid."),
  plan_id: z
    .union([z.string(), z.number().int()], {
      error: 'plan_id must be a plan id such as "3"',
    })
    .nullable()
    .optional()
    .describe('The plan\'s id (a string such as "3"; a JSON number is accepted too).'),
  send_invitation: z
    .boolean({ error: "send_invitation must be true or false" })
    .default(true)
    .describe("Send the invitation email to contact_email."),
});
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBody>;

export const UpdateWorkspaceBody = z.strictObject({
  name: name.optional(),
  status: z
    .enum(settableWorkspaceStatuses, {
      error:
        "status must be active or suspended; trial is set by the service, archived by POST …/archive",
    })
    .optional()
    .describe(
      "Either restores an archived workspace (`suspended` into suspension); `active` also ends a trial (running or ended). Changing the status takes a reseller token.",
    ),
  plan_id: z
    .union([z.string(), z.number().int()], {
      error: (issue) =>
        issue.input === null
          ? "plan_id cannot be null: a workspace's plan can be changed to another, not removed"
          : 'plan_id must be a plan id such as "3"',
    })
    .optional()
    .describe(
      "Moves the workspace to this plan (a plan is changed, never removed: null is a 422). A paid plan makes a trial (or trial-ended) workspace active; a plan whose limits are below current usage is a 409 plan_limit_exceeded naming each feature.",
    ),
});
export type UpdateWorkspaceBody = z.infer<typeof UpdateWorkspaceBody>;

export const WorkspaceListQuery = PageQuery.extend({
  status: z
    .enum(workspaceStatuses, { error: `status must be one of ${workspaceStatuses.join(", ")}` })
    .optional()
    .describe("Only workspaces in this status; archived ones are listed only when asked for."),
});

export const WorkspaceIdParams = z.object({ id: z.string().describe("The workspace's id.") });

export const WorkspaceResponse = successEnvelope(Workspace, EmptyMeta);
export const WorkspaceWithUsageResponse = successEnvelope(WorkspaceWithUsage, EmptyMeta);
export const WorkspaceListResponse = listEnvelope(Workspace);
