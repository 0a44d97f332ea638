import type { ExpressionBuilder } from "kysely";
import { quoted } from "../../contract/errors.js";
import type { ListMeta } from "../../contract/pagination.js";
import {
  checkTemplate,
  problemLine,
  type TemplateComponent,
  type TemplateProblem,
} from "../../contract/template-rules.js";
import type {
  CreateTemplateBody,
  RejectionReason,
  SandboxReviewBody,
  Template,
  TemplateCategory,
  TemplateListQuery,
  TemplateStatus,
} from "../../contract/templates.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { paginate } from "../db/keyset-paging.js";
import type { Database } from "../db/schema.js";
import type { TemplateTable } from "../db/tables/templates.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import { templateReviewJobKind } from "../jobs/job-kinds.js";
import type { TemplateDecision, TemplateUnderReview } from "../messaging/provider.js";
import type { MessagingProviders } from "../messaging/provider-routing.js";
import type { JobScheduler } from "../services.js";
import { type Clock, isoSeconds } from "./clock.js";
import { recordWorkspaceEvent } from "./events.js";
import { newId } from "./ids.js";
import { enforcePlanLimit } from "./plan-limits.js";
import { ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { canSeeWorkspace, loadActiveWorkspaceFor, loadWorkspaceFor } from "./workspace-access.js";

/** What the template rules need: the database, time, the job queue and the operator. */
export interface TemplateServices {
  db: Db;
  clock: Clock;
  jobs: JobScheduler;
  messaging: MessagingProviders;
}

/** Statuses from which the API may delete a template; the others belong to the dashboard. */
const deletableStatuses: readonly TemplateStatus[] = ["draft", "rejected"];

function toTemplate(row: TemplateTable): Template {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    category: row.category as TemplateCategory,
    language: row.language,
    components: parseJson(row.components),
    status: row.status as TemplateStatus,
    rejection_reason: row.rejection_reason as RejectionReason | null,
    rejection_detail: row.rejection_detail,
    created_at: row.created_at,
    updated_at: row.updated_at,
    submitted_at: row.submitted_at,
    reviewed_at: row.reviewed_at,
  };
}

function templateNotFound(templateId: string): ServiceError {
  return new ServiceError("not_found", `Template ${quoted(templateId)} was not found.`);
}

/** The 422 for a template that breaks formal rules: every problem, each with field and rule. */
export function templateInvalid(problems: readonly TemplateProblem[]): ServiceError {
  const shown = problems.slice(0, 3).map(problemLine).join("; ");
  const more = problems.length > 3 ? `; and ${problems.length - 3} more (see details)` : "";
  return new ServiceError(
    "validation_failed",
    `The template breaks ${problems.length} rule${problems.length === 1 ? "" : "s"}: ${shown}${more}`,
    { details: problems.map((p) => ({ field: p.field, message: p.message, rule: p.rule })) },
  );
}

async function readTemplate(
  db: Db,
  workspaceId: string,
  templateId: string,
): Promise<TemplateTable> {
  const row = await db
    .selectFrom("templates")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", templateId)
    .executeTakeFirst();
  if (!row) throw templateNotFound(templateId);
  return row;
}

async function readById(db: Db, templateId: string): Promise<TemplateTable> {
  return db
    .selectFrom("templates")
    .selectAll()
    .where("id", "=", templateId)
    .executeTakeFirstOrThrow();
}

function reviewAt(services: TemplateServices, now: Date): Date {
  return new Date(now.getTime() + Math.max(0, services.messaging.reviewDelayMs));
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE";
}

function templateExists(
  name: string,
  language: string,
  existing?: Pick<TemplateTable, "id" | "status">,
) {
  const which = existing ? ` (${existing.id}, ${existing.status})` : "";
  return new ServiceError(
    "template_exists",
    `A template named '${name}' in language '${language}' already exists in this workspace${which}. Use another name, or delete the existing one if it is a draft or rejected.`,
    { details: [{ field: "name", message: `'${name}' is taken for language '${language}'` }] },
  );
}

/** The workspace's templates, newest first, optionally narrowed by status, category, name, language. */
export async function listTemplates(
  db: Db,
  principal: Principal,
  workspaceId: string,
  query: TemplateListQuery,
): Promise<{ data: Template[]; meta: ListMeta }> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  let select = db.selectFrom("templates").selectAll().where("workspace_id", "=", workspace.id);
  if (query.status !== undefined) select = select.where("status", "=", query.status);
  if (query.category !== undefined) select = select.where("category", "=", query.category);
  if (query.name !== undefined) select = select.where("name", "=", query.name);
  if (query.language !== undefined) select = select.where("language", "=", query.language);
  const page = await paginate(select, "templates.id", query);
  return { data: page.rows.map(toTemplate), meta: { pagination: page.pagination } };
}

/** One template of a workspace the caller may see. */
export async function getTemplate(
  db: Db,
  principal: Principal,
  workspaceId: string,
  templateId: string,
): Promise<Template> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  return toTemplate(await readTemplate(db, workspace.id, templateId));
}

/**
 * Checks a template against every formal rule (422 listing each problem), then stores it: as
 * `pending` with its review queued for the operator, or as a `draft` when asked. Identity is
 * workspace + name + language (409 template_exists); the plan's `templates` limit counts every
 * stored template, drafts and rejected ones included (409 plan_limit_exceeded).
 */
export async function createTemplate(
  services: TemplateServices,
  principal: Principal,
  workspaceId: string,
  body: CreateTemplateBody,
): Promise<Template> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const { draft, ...definition } = body;
  const check = checkTemplate(definition);
  if (!check.ok) throw templateInvalid(check.problems);
  const { name, category, language, components } = check.template;
  const now = clock.now();
  const row: TemplateTable = {
    id: newId("tpl"),
    workspace_id: workspace.id,
    name,
    category,
    language,
    components: JSON.stringify(components),
    status: draft ? "draft" : "pending",
    rejection_reason: null,
    rejection_detail: null,
    created_at: isoSeconds(now),
    updated_at: isoSeconds(now),
    submitted_at: draft ? null : isoSeconds(now),
    reviewed_at: null,
    provider_template_id: null,
    status_reported_at: null,
  };
  try {
    await db.transaction().execute(async (trx) => {
      // Before the name check: two creates of one name must not both find it free.
      await lockWorkspaceRow(trx, workspace.id);
      const existing = await trx
        .selectFrom("templates")
        .select(["id", "status"])
        .where("workspace_id", "=", workspace.id)
        .where("name", "=", name)
        .where("language", "=", language)
        .executeTakeFirst();
      if (existing) throw templateExists(name, language, existing);
      await enforcePlanLimit(trx, clock, workspace, "templates");
      await trx.insertInto("templates").values(row).execute();
      if (!draft) {
        await services.jobs.enqueue(trx, {
          kind: templateReviewJobKind,
          payload: reviewJobPayload(row.id),
          runAt: reviewAt(services, now),
        });
      }
    });
  } catch (error) {
    // Two creates of one identity at once: the unique index lets one win.
    if (isUniqueViolation(error)) throw templateExists(name, language);
    throw error;
  }
  if (!draft) services.jobs.poke();
  return toTemplate(row);
}

/**
 * Brings forward the review of the workspace's pending templates that never reached the
 * operator (its number was disconnected, Meta refused the old token): their number is
 * connected again, so they are submitted now rather than at the next recheck.
 */
export async function reviewUnsubmittedTemplatesNow(
  db: Db,
  workspaceId: string,
  now: Date,
): Promise<void> {
  const unsubmitted = await db
    .selectFrom("templates")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("status", "=", "pending")
    .where("provider_template_id", "is", null)
    .execute();
  if (unsubmitted.length === 0) return;
  await db
    .updateTable("jobs")
    .set({ run_at: now.toISOString() })
    .where("kind", "=", templateReviewJobKind)
    .where("state", "=", "queued")
    .where(
      "payload",
      "in",
      // As enqueueJob stores a payload: the same object, as JSON.
      unsubmitted.map((t) => JSON.stringify(reviewJobPayload(t.id))),
    )
    .execute();
}

/** A template's review job's payload: made here for every review, so it finds the job again. */
function reviewJobPayload(templateId: string): { template_id: string } {
  return { template_id: templateId };
}

/** Submits a draft for review: `pending`, review queued. Anything else is a 409 template_not_draft. */
export async function submitTemplate(
  services: TemplateServices,
  principal: Principal,
  workspaceId: string,
  templateId: string,
): Promise<Template> {
  const { db, clock } = services;
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    const current = await readTemplate(trx, workspace.id, templateId);
    const result = await trx
      .updateTable("templates")
      .set({ status: "pending", submitted_at: isoSeconds(now), updated_at: isoSeconds(now) })
      .where("id", "=", current.id)
      .where("status", "=", "draft")
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      // Said as the template is now: a submit or a delete that committed since it was read
      // (PostgreSQL) makes it pending (409) or gone (404), not the draft it was.
      const found = await readTemplate(trx, workspace.id, templateId);
      throw new ServiceError(
        "template_not_draft",
        `Template '${found.id}' is ${found.status}, not a draft; only a draft can be submitted.`,
      );
    }
    await services.jobs.enqueue(trx, {
      kind: templateReviewJobKind,
      payload: reviewJobPayload(current.id),
      runAt: reviewAt(services, now),
    });
  });
  services.jobs.poke();
  return toTemplate(await readById(db, templateId));
}

/** Deletes a draft or rejected template; approved, pending and paused ones are the dashboard's (409). */
export async function deleteTemplate(
  db: Db,
  principal: Principal,
  workspaceId: string,
  templateId: string,
): Promise<{ id: string; name: string; language: string; deleted: true }> {
  const workspace = await loadActiveWorkspaceFor(db, principal, workspaceId);
  const current = await readTemplate(db, workspace.id, templateId);
  const result = await db
    .deleteFrom("templates")
    .where("id", "=", current.id)
    .where("status", "in", deletableStatuses)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) {
    const status = (await readTemplate(db, workspace.id, templateId)).status;
    throw new ServiceError(
      "template_not_deletable",
      `Template '${current.id}' is ${status}; only a draft or rejected template can be deleted through the API. Manage approved, pending or paused templates in the workspace dashboard.`,
    );
  }
  return { id: current.id, name: current.name, language: current.language, deleted: true };
}

type Decision = TemplateDecision;

/** Records a decision if the template is still in one of `from`; answers whether it was. */
export async function recordDecision(
  db: Db,
  clock: Clock,
  templateId: string,
  decision: Decision,
  from: readonly TemplateStatus[],
  /** When the operator's report was made: one older than the last applied changes nothing. */
  reportedAt?: Date,
): Promise<boolean> {
  const now = isoSeconds(clock.now());
  const reported = reportedAt ? isoSeconds(reportedAt) : null;
  // The change and its template.status_changed event commit together (see events.ts).
  const apply = async (trx: Db): Promise<boolean> => {
    let update = trx
      .updateTable("templates")
      .set({
        status: decision.status,
        rejection_reason: decision.status === "rejected" ? decision.reason : null,
        rejection_detail: decision.status === "rejected" ? (decision.detail ?? null) : null,
        reviewed_at: now,
        updated_at: now,
        ...(reported ? { status_reported_at: reported } : {}),
      })
      .where("id", "=", templateId)
      .where("status", "in", from);
    if (reported) update = update.where(notNewerThan(reported));
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      // A repeat of the status in hand is still the newest word on it: a report older than it
      // (Meta's webhooks come in any order) must change nothing either.
      if (reported) {
        await trx
          .updateTable("templates")
          .set({ status_reported_at: reported })
          .where("id", "=", templateId)
          .where("status", "=", decision.status)
          .where(notNewerThan(reported))
          .execute();
      }
      return false;
    }
    const row = await trx
      .selectFrom("templates")
      .selectAll()
      .where("id", "=", templateId)
      .executeTakeFirstOrThrow();
    await recordApprovalPeriod(trx, row, now);
    await recordWorkspaceEvent(
      trx,
      clock,
      row.workspace_id,
      "template.status_changed",
      toTemplate(row),
    );
    return true;
  };
  return db.isTransaction ? apply(db) : db.transaction().execute(apply);
}

/** The template's last applied report is not newer than `reported` (or there is none). */
function notNewerThan(reported: string) {
  return (eb: ExpressionBuilder<Database, "templates">) =>
    eb.or([eb("status_reported_at", "is", null), eb("status_reported_at", "<=", reported)]);
}

/**
 * Ends the template's approved period, if one is open, and opens one when it is approved now:
 * the usage report counts the templates approved at a month's end from these periods.
 */
async function recordApprovalPeriod(trx: Db, row: TemplateTable, now: string): Promise<void> {
  await trx
    .updateTable("template_approvals")
    .set({ approved_until: now })
    .where("template_id", "=", row.id)
    .where("approved_until", "is", null)
    .execute();
  if (row.status !== "approved") return;
  await trx
    .insertInto("template_approvals")
    .values({
      template_id: row.id,
      workspace_id: row.workspace_id,
      approved_from: now,
      approved_until: null,
    })
    // Paused and approved again within the second: the period that just ended goes on.
    .onConflict((oc) =>
      oc.columns(["template_id", "approved_from"]).doUpdateSet({ approved_until: null }),
    )
    .execute();
}

/** A stored template as an operator reviews it. */
export function underReview(row: TemplateTable): TemplateUnderReview {
  const template = toTemplate(row);
  return {
    id: template.id,
    workspace_id: template.workspace_id,
    name: template.name,
    category: template.category,
    language: template.language,
    components: template.components as TemplateComponent[],
    provider_template_id: row.provider_template_id,
  };
}

/** Statuses Meta's reports move a template from: every one it submitted. */
const reportable: readonly TemplateStatus[] = ["pending", "approved", "rejected", "paused"];

/**
 * Which statuses an operator's report may move a template from: the template follows Meta
 * (running-for-real.md) wherever it is, a rejected one approved after an edit or a won appeal,
 * an approved one rejected on a second review, as well as forward. Disabled stays: Meta does
 * not enable a disabled template again. A draft was never submitted, so no report is about it.
 */
const reportSources: Record<Decision["status"], readonly TemplateStatus[]> = {
  approved: reportable.filter((status) => status !== "approved"),
  rejected: reportable.filter((status) => status !== "rejected"),
  paused: reportable.filter((status) => status !== "paused"),
  disabled: reportable,
};

/**
 * Applies what the operator reports about a template (a Cloud API webhook, the template sync, a
 * send's refusal), inside the caller's transaction; a report that does not fit the current status
 * (a repeat) or was made before the last applied one (`reportedAt`: a webhook's time; now for
 * what the operator answers now) changes nothing. Answers whether it changed the template.
 */
export async function applyTemplateStatus(
  db: Db,
  clock: Clock,
  templateId: string,
  decision: Decision,
  reportedAt: Date = clock.now(),
): Promise<boolean> {
  return recordDecision(
    db,
    clock,
    templateId,
    decision,
    reportSources[decision.status],
    reportedAt,
  );
}

/** Which statuses each operator decision applies to. */
const decisionSources: Record<SandboxReviewBody["decision"], readonly TemplateStatus[]> = {
  approve: ["pending", "paused"],
  reject: ["pending"],
  pause: ["approved"],
};

/**
 * The sandbox operator's controls: approve (a pending or paused template), reject with a reason
 * (a pending one), pause (an approved one). Only for a template the sandbox reviews (not one submitted to Meta), and
 * only for a template in a workspace the caller may see (404 otherwise).
 */
export async function decideAsOperator(
  services: TemplateServices,
  principal: Principal,
  templateId: string,
  body: SandboxReviewBody,
): Promise<Template> {
  const { db, clock } = services;
  const found = await db
    .selectFrom("templates")
    .innerJoin("workspaces", "workspaces.id", "templates.workspace_id")
    .selectAll("templates")
    .select("workspaces.reseller_id")
    .where("templates.id", "=", templateId)
    .executeTakeFirst();
  if (
    !found ||
    !canSeeWorkspace(principal, { id: found.workspace_id, reseller_id: found.reseller_id })
  ) {
    throw templateNotFound(templateId);
  }
  if (found.provider_template_id) {
    throw new ServiceError(
      "template_not_reviewable",
      `Template '${templateId}' was submitted to Meta (WhatsApp Cloud API), which decides about it; the sandbox's operator controls do not apply.`,
    );
  }
  if (body.decision === "reject" && body.reason === undefined) {
    throw new ServiceError("validation_failed", "reason: a rejection needs a reason.", {
      details: [{ field: "reason", message: "is required with decision reject" }],
    });
  }
  if (body.decision !== "reject" && (body.reason !== undefined || body.detail !== undefined)) {
    const field = body.reason !== undefined ? "reason" : "detail";
    throw new ServiceError("validation_failed", `${field}: only a rejection takes a ${field}.`, {
      details: [{ field, message: `is accepted only with decision reject` }],
    });
  }
  const decision: Decision =
    body.decision === "approve"
      ? { status: "approved" }
      : body.decision === "pause"
        ? { status: "paused" }
        : { status: "rejected", reason: body.reason as RejectionReason, detail: body.detail };
  const from = decisionSources[body.decision];
  if (!(await recordDecision(db, clock, templateId, decision, from))) {
    const status = (await readById(db, templateId)).status;
    throw new ServiceError(
      "template_not_reviewable",
      `Cannot ${body.decision} template '${templateId}': it is ${status}, and ${body.decision} applies to ${from.join(" or ")} templates.`,
    );
  }
  return toTemplate(await readById(db, templateId));
}
