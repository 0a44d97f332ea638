import { quoted } from "../../contract/errors.js";
import type { ListMeta } from "../../contract/pagination.js";
import { isUnlimited } from "../../contract/vocabulary.js";
import type {
  CreateWorkspaceBody,
  UpdateWorkspaceBody,
  Workspace,
  WorkspaceStatus,
  WorkspaceWithUsage,
} from "../../contract/workspaces.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { PlanTable, WorkspaceTable } from "../db/schema.js";
import { lockWorkspaceRow } from "../db/write-conflicts.js";
import { type Clock, isoSeconds } from "./clock.js";
import { recordEvent } from "./events.js";
import { newId } from "./ids.js";
import { invitationMail, type WorkspaceOrigin } from "./invitations.js";
import { type Mailer, type OutboxEntry, sendFromOutbox, writeToOutbox } from "./outbox.js";
import { planChangeAdvice, planFeatures } from "./plan-limits.js";
import { planIdFrom } from "./plans.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { computeUsage, isMetered, meteredUsage } from "./usage.js";
import {
  loadWorkspaceFor,
  requireActiveForClient,
  requireResellerToken,
} from "./workspace-access.js";

/** What the workspace rules need beyond the database: time, links and mail. */
export interface WorkspaceServices {
  db: Db;
  clock: Clock;
  /** Base of the invitation's sign-up link. */
  publicUrl: () => string;
  /** Sends invitations beyond the outbox; null when no SMTP is configured. */
  mailer: Mailer | null;
}

type WorkspaceWithPlanRow = WorkspaceTable & { plan_name: string | null; plan_slug: string | null };

const dayMs = 86_400_000;

function selectWorkspaces(db: Db) {
  return db
    .selectFrom("workspaces")
    .leftJoin("plans", "plans.id", "workspaces.plan_id")
    .selectAll("workspaces")
    .select(["plans.name as plan_name", "plans.slug as plan_slug"]);
}

function toWorkspace(row: WorkspaceWithPlanRow): Workspace {
  return {
    id: row.id,
    name: row.name,
    contact_email: row.contact_email,
    plan_id: row.plan_id === null ? null : String(row.plan_id),
    plan:
      row.plan_id === null || row.plan_name === null || row.plan_slug === null
        ? null
        : { id: row.plan_id, name: row.plan_name, slug: row.plan_slug },
    status: row.status as WorkspaceStatus,
    suspended_reason: row.suspended_reason ?? null,
    trial_ends_at: row.trial_ends_at,
    invitation: { sent: row.invitation_sent_at !== null, sent_at: row.invitation_sent_at },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** One workspace as the API shows it (inside a transaction too: events carry it). */
export async function readWorkspace(db: Db, id: string): Promise<Workspace> {
  return toWorkspace(
    await selectWorkspaces(db).where("workspaces.id", "=", id).executeTakeFirstOrThrow(),
  );
}

/** The plan a create names, or null without one; an unknown id is a 422 on plan_id. */
async function resolvePlan(
  db: Db,
  planId: string | number | null | undefined,
): Promise<(Omit<PlanTable, "id"> & { id: number }) | null> {
  if (planId === undefined || planId === null) return null;
  const text = String(planId).trim();
  const id = planIdFrom(text);
  const row =
    id === null
      ? undefined
      : await db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw invalidField("plan_id", `no plan has the id ${quoted(text)}`);
  return row;
}

async function markInvited(db: Db, workspaceId: string, sentAt: string | null): Promise<void> {
  if (sentAt === null) return;
  await db
    .updateTable("workspaces")
    .set({ invitation_sent_at: sentAt })
    .where("id", "=", workspaceId)
    .execute();
}

/** Writes a new workspace's invitation to the outbox (sent there and then without SMTP). */
async function queueInvitation(
  db: Db,
  services: WorkspaceServices,
  workspace: WorkspaceTable,
  plan: { name: string; slug: string } | null,
  origin: WorkspaceOrigin,
): Promise<OutboxEntry> {
  const entry = await writeToOutbox(
    db,
    services.clock,
    {
      ...invitationMail(workspace, plan, services.publicUrl(), origin),
      resellerId: workspace.reseller_id,
      workspaceId: workspace.id,
      kind: "invitation",
    },
    services.mailer !== null,
  );
  await markInvited(db, workspace.id, entry.sentAt);
  return entry;
}

/** The caller's workspaces, newest first, optionally of one status; a workspace token sees its own. */
export async function listWorkspaces(
  db: Db,
  principal: Principal,
  query: PageRequest & { status?: WorkspaceStatus | undefined },
): Promise<{ data: Workspace[]; meta: ListMeta }> {
  let select = selectWorkspaces(db).where("workspaces.reseller_id", "=", principal.resellerId);
  if (principal.workspaceId !== null) {
    select = select.where("workspaces.id", "=", principal.workspaceId);
  }
  // Archived workspaces are out of sight unless asked for by status.
  select =
    query.status !== undefined
      ? select.where("workspaces.status", "=", query.status)
      : select.where("workspaces.status", "!=", "archived");
  const page = await paginate(select, "workspaces.id", query);
  return { data: page.rows.map(toWorkspace), meta: { pagination: page.pagination } };
}

/**
 * Creates a workspace under the caller's reseller: `trial` (with trial_ends_at) on a free plan
 * with trial days, otherwise `active`; then sends the invitation unless asked not to (worded for
 * its `origin`, see invitationMail).
 */
export async function createWorkspace(
  services: WorkspaceServices,
  principal: Principal,
  input: CreateWorkspaceBody,
  origin: WorkspaceOrigin = "api",
): Promise<Workspace> {
  requireResellerToken(principal, "create workspaces");
  const { db, clock } = services;
  const plan = await resolvePlan(db, input.plan_id);
  const now = clock.now();
  const onTrial = plan !== null && plan.is_free === 1 && plan.trial_days !== null;
  const row: WorkspaceTable = {
    id: newId("ws"),
    reseller_id: principal.resellerId,
    name: input.name,
    contact_email: input.contact_email,
    plan_id: plan?.id ?? null,
    status: onTrial ? "trial" : "active",
    suspended_reason: null,
    trial_ends_at:
      onTrial && plan.trial_days !== null
        ? isoSeconds(new Date(now.getTime() + plan.trial_days * dayMs))
        : null,
    invitation_sent_at: null,
    created_at: isoSeconds(now),
    updated_at: isoSeconds(now),
  };
  // The workspace and its invitation are stored together; SMTP is reached only after the
  // commit, since it may be slow and a failed send must not undo the workspace.
  // The event follows the invitation, so it shows the workspace as the create answer does.
  const invitation = await db.transaction().execute(async (trx) => {
    await trx.insertInto("workspaces").values(row).execute();
    const queued = input.send_invitation
      ? await queueInvitation(trx, services, row, plan, origin)
      : null;
    await recordWorkspaceUpdate(trx, clock, row, "workspace.created");
    return queued;
  });
  if (invitation && services.mailer) {
    await markInvited(db, row.id, await sendFromOutbox(db, clock, services.mailer, invitation));
  }
  return readWorkspace(db, row.id);
}

/** One workspace the caller may see, with its usage against its plan. */
export async function getWorkspace(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceWithUsage> {
  const row = await loadWorkspaceFor(db, principal, workspaceId);
  const usage = await computeUsage(db, clock, row.id, await planFeatures(db, row.plan_id));
  return { ...(await readWorkspace(db, row.id)), usage };
}

/** Records `workspace.created` or `workspace.updated` with the workspace as it now is. */
async function recordWorkspaceUpdate(
  trx: Db,
  clock: Clock,
  row: Pick<WorkspaceTable, "id" | "reseller_id">,
  type: "workspace.created" | "workspace.updated",
): Promise<void> {
  await recordEvent(trx, clock, {
    resellerId: row.reseller_id,
    workspaceId: row.id,
    type,
    data: await readWorkspace(trx, row.id),
  });
}

/**
 * Refuses a plan whose limits are below what the workspace uses now: one 409
 * plan_limit_exceeded naming every such feature.
 */
async function requirePlanFits(
  db: Db,
  clock: Clock,
  workspaceId: string,
  plan: Pick<PlanTable, "features" | "name">,
): Promise<void> {
  const over: { field: string; message: string; limit: number; used: number }[] = [];
  for (const feature of parseJson(plan.features).filter(isMetered)) {
    const limit = feature.value;
    if (limit === null || isUnlimited(limit)) continue;
    const used = await meteredUsage(db, clock, workspaceId, feature.key);
    if (used > limit) {
      over.push({ field: feature.key, message: `limit ${limit}, used ${used}`, limit, used });
    }
  }
  if (over.length > 0) {
    throw new ServiceError(
      "plan_limit_exceeded",
      `Plan '${plan.name}' allows less than the workspace uses: ${over.map((o) => `${o.field} (limit ${o.limit}, used ${o.used})`).join(", ")}; ${planChangeAdvice(over.map((o) => o.field))}`,
      { details: over },
    );
  }
}

type WorkspaceChanges = Partial<
  Pick<WorkspaceTable, "name" | "status" | "plan_id" | "trial_ends_at" | "suspended_reason">
>;

/** What a plan change does to the record: a paid plan ends a trial, or a trial's suspension. */
function planChanges(
  row: WorkspaceTable,
  plan: Pick<PlanTable, "is_free"> & { id: number },
): WorkspaceChanges {
  const changes: WorkspaceChanges = { plan_id: plan.id };
  if (plan.is_free === 0) {
    // A paid plan ends any trial, whatever the workspace's status now.
    if (row.trial_ends_at !== null) changes.trial_ends_at = null;
    if (row.status === "trial") Object.assign(changes, { status: "active", trial_ends_at: null });
    if (row.status === "suspended" && row.suspended_reason === "trial_ended") {
      Object.assign(changes, { status: "active", trial_ends_at: null, suspended_reason: null });
    }
  }
  return changes;
}

/**
 * Changes only the given fields: name, status (active or suspended; either restores an
 * archived workspace) and plan_id (see planChanges and requirePlanFits). An archived workspace
 * takes only its restore. Status active ends a trial, running or ended, as a paid plan does.
 * Plan and status are changed by reseller tokens only; a workspace token may rename.
 * An empty change changes nothing and records no event.
 */
export async function updateWorkspace(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
  input: UpdateWorkspaceBody,
): Promise<Workspace> {
  const seen = await loadWorkspaceFor(db, principal, workspaceId);
  // What a client pays for is the reseller's to decide, not a workspace token's.
  if (input.plan_id !== undefined) requireResellerToken(principal, "change a workspace's plan");
  // Resolved even when it names the plan read above: whether it changes anything is decided
  // under the lock. The plan the workspace is on passes even if the catalogue has dropped it.
  const keeping = String(input.plan_id).trim() === String(seen.plan_id);
  const asked =
    input.plan_id === undefined
      ? null
      : await resolvePlan(db, input.plan_id).catch((error: unknown) => {
          if (keeping) return null;
          throw error;
        });
  await db.transaction().execute(async (trx) => {
    // The changes follow from the workspace as it is under its lock (PostgreSQL; SQLite's
    // transaction holds the write lock from its start), not as read before: a suspension or an
    // archive committed meanwhile is kept, and a change already made is not made (nor told) again.
    // Creates take the same lock to count, so they either count before a new plan's limits are
    // checked here or wait and meet them.
    await lockWorkspaceRow(trx, seen.id);
    const row = await loadWorkspaceFor(trx, principal, workspaceId);
    const plan = asked !== null && String(asked.id) !== String(row.plan_id) ? asked : null;
    // The interface's rule: status suspended makes any workspace suspended, so an archived one
    // may be restored into suspension (its tokens read again; writes wait for status active).
    const restoring = input.status === "active" || input.status === "suspended";
    if (row.status === "archived" && (!restoring || plan !== null)) {
      throw new ServiceError(
        "workspace_not_active",
        `Workspace '${row.id}' is archived and read-only; restore it first with status active (or suspended).`,
      );
    }
    const changes: WorkspaceChanges = {};
    if (input.name !== undefined && input.name !== row.name) {
      requireActiveForClient(principal, row);
      changes.name = input.name;
    }
    if (plan) Object.assign(changes, planChanges(row, plan));
    if (input.status !== undefined && input.status !== (changes.status ?? row.status)) {
      // Suspending, restoring and ending a trial are the reseller's enforcement and billing, as
      // the plan is: a client's own token cannot lift its suspension.
      requireResellerToken(principal, "change a workspace's status");
      changes.status = input.status;
      changes.suspended_reason = null;
      // The interface's rule: status active makes any workspace active. The reseller has decided
      // the client goes on without a trial, so none is left to run out (or to show).
      if (input.status === "active" && row.trial_ends_at !== null) changes.trial_ends_at = null;
    }
    if (Object.keys(changes).length === 0) return;
    if (plan) await requirePlanFits(trx, clock, row.id, plan);
    await trx
      .updateTable("workspaces")
      .set({ ...changes, updated_at: isoSeconds(clock.now()) })
      .where("id", "=", row.id)
      .execute();
    await recordWorkspaceUpdate(trx, clock, row, "workspace.updated");
  });
  return readWorkspace(db, seen.id);
}

/**
 * Archives a workspace: read-only, nothing is sent, its workspace tokens stop working. PATCH
 * status active (or suspended) restores it. Archiving an archived workspace changes nothing.
 */
export async function archiveWorkspace(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
): Promise<Workspace> {
  requireResellerToken(principal, "archive workspaces");
  const seen = await loadWorkspaceFor(db, principal, workspaceId);
  await db.transaction().execute(async (trx) => {
    // Decided under the lock, as updateWorkspace decides: two archives tell it once.
    await lockWorkspaceRow(trx, seen.id);
    const row = await loadWorkspaceFor(trx, principal, workspaceId);
    if (row.status === "archived") return;
    await trx
      .updateTable("workspaces")
      .set({ status: "archived", updated_at: isoSeconds(clock.now()) })
      .where("id", "=", row.id)
      .execute();
    await recordWorkspaceUpdate(trx, clock, row, "workspace.updated");
  });
  return readWorkspace(db, seen.id);
}

/**
 * Suspends every trial workspace whose trial_ends_at has passed, with suspended_reason
 * `trial_ended` and a workspace.updated event each; returns how many.
 */
export async function expireTrials(db: Db, clock: Clock): Promise<number> {
  const now = isoSeconds(clock.now());
  const due = await db
    .selectFrom("workspaces")
    .select(["id", "reseller_id"])
    .where("status", "=", "trial")
    .where("trial_ends_at", "<=", now)
    .execute();
  for (const row of due) {
    await db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("workspaces")
        .set({ status: "suspended", suspended_reason: "trial_ended", updated_at: now })
        .where("id", "=", row.id)
        .where("status", "=", "trial")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) {
        await recordWorkspaceUpdate(trx, clock, row, "workspace.updated");
      }
    });
  }
  return due.length;
}
