/**
 * Plain value lists of the contract, free of zod, so the CLI's command tree can offer them as
 * choices (and completions) without loading the schema library at start-up.
 */
export const billingPeriods = [
  "monthly",
  "quarterly",
  "half_yearly",
  "yearly",
  "lifetime",
] as const;

export const scopes = [
  "plans:read",
  "workspaces:read",
  "workspaces:write",
  "contacts:read",
  "contacts:write",
  "campaigns:read",
  "campaigns:write",
  "templates:read",
  "templates:write",
  "webhooks:read",
  "webhooks:write",
] as const;

/** Every type of event the service records and pushes to webhook endpoints. */
export const eventTypes = [
  "workspace.created",
  "workspace.updated",
  "contact_import.completed",
  "contact_import.failed",
  "contact.opted_out",
  "contact.opted_in",
  "template.status_changed",
  "channel.connected",
  "channel.disconnected",
  "campaign.started",
  "campaign.completed",
  "campaign.failed",
  "campaign.paused",
  "campaign.cancelled",
] as const;

/**
 * A comma-separated list of event types as the stream's `types` and `listen --events` take it,
 * split and trimmed (empty items dropped), with the items that are no event type apart.
 */
export function splitEventTypes(text: string): { types: string[]; unknown: string[] } {
  const types = text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  const unknown = types.filter((t) => !(eventTypes as readonly string[]).includes(t));
  return { types, unknown };
}

/** Every status a workspace can be in. */
export const workspaceStatuses = ["active", "trial", "suspended", "archived"] as const;

/** The statuses a reseller may set with PATCH; trial and archived are the service's to set. */
export const settableWorkspaceStatuses = ["active", "suspended"] as const;

/** A contact's messaging consent. */
export const optInStatuses = ["opted_in", "not_set", "opted_out"] as const;

/** What a contact import does with a phone that already exists: overwrite its fields, or leave it. */
export const duplicateHandlings = ["update", "skip"] as const;

/** Every status a contact import can be in. */
export const importStatuses = ["queued", "processing", "completed", "failed"] as const;

/** Every status a message template can be in, draft included. */
export const templateStatuses = [
  "draft",
  "pending",
  "approved",
  "rejected",
  "paused",
  "disabled",
] as const;

/** Message template categories, as the wire spells them (WhatsApp's upper-case forms are accepted on input). */
export const templateCategories = ["marketing", "utility", "authentication"] as const;
export type TemplateCategoryValue = (typeof templateCategories)[number];

/** Reasons the messaging platform operator gives when it rejects a template. */
export const templateRejectionReasons = [
  "ABUSIVE_CONTENT",
  "INCORRECT_CATEGORY",
  "INVALID_FORMAT",
  "PROMOTIONAL",
  "SCAM",
  "TAG_CONTENT_MISMATCH",
] as const;
export type TemplateRejectionReason = (typeof templateRejectionReasons)[number];

/** What the sandbox operator can decide about a template (operator controls). */
export const templateReviewDecisions = ["approve", "reject", "pause"] as const;

/** Every status a campaign can be in. */
export const campaignStatuses = [
  "draft",
  "scheduled",
  "running",
  "paused",
  "completed",
  "failed",
  "cancelled",
] as const;

/** Whether a plan's ceiling (a limit or quota feature's value) is none: the contract writes that as -1. */
export function isUnlimited(ceiling: number): boolean {
  return ceiling === -1;
}

/** The statuses a campaign never leaves: its sending is over (the dashboard's page keeps a copy). */
export const finalCampaignStatuses: readonly string[] = ["completed", "failed", "cancelled"];

/** The page size every list uses unless asked otherwise, the most it answers at once, and the highest page number. */
export const paging = { defaultPerPage: 20, maxPerPage: 100, maxPage: 1_000_000_000 } as const;

/** Statuses of a channel (a connected number). */
export const channelStatuses = ["connected", "disconnected"] as const;

/** Contact fields a template variable can be mapped to (besides `custom.<key>`). */
export const contactVariableFields = ["first_name", "last_name", "phone", "email"] as const;
