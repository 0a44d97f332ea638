import type { ListMeta } from "../../contract/pagination.js";
import type {
  CreateWorkspaceBody,
  UpdateWorkspaceBody,
  Workspace,
  WorkspaceStatus,
  WorkspaceWithUsage,
} from "../../contract/workspaces.js";
import type { Db } from "../db/database.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { PlanTable, WorkspaceTable } from "../db/schema.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import { invitationMail } from "./invitations.js";
import { type Mailer, type OutboxEntry, sendFromOutbox, writeToOutbox } from "./outbox.js";
import { planFeatures } from "./plan-limits.js";
import { invalidField } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { computeUsage } from "./usage.js";
import { loadWorkspaceFor, requireResellerToken } from "./workspace-access.js";

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
    trial_ends_at: row.trial_ends_at,
    invitation: { sent: row.invitation_sent_at !== null, sent_at: row.invitation_sent_at },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function readWorkspace(db: Db, id: string): Promise<Workspace> {
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
  const row = /^\d{1,15}$/.test(text)
    ? await db.selectFrom("plans").selectAll().where("id", "=", Number(text)).executeTakeFirst()
    : undefined;
  if (!row) throw invalidField("plan_id", `no plan has the id '${text}'`);
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
): Promise<OutboxEntry> {
  const entry = await writeToOutbox(
    db,
    services.clock,
    {
      ...invitationMail(workspace, plan, services.publicUrl()),
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
  if (query.status !== undefined) select = select.where("workspaces.status", "=", query.status);
  const page = await paginate(select, "workspaces.id", query);
  return { data: page.rows.map(toWorkspace), meta: { pagination: page.pagination } };
}

/**
 * Creates a workspace under the caller's reseller: `trial` (with trial_ends_at) on a free plan
 * with trial days, otherwise `active`; then sends the invitation unless asked not to.
 */
export async function createWorkspace(
  services: WorkspaceServices,
  principal: Principal,
  input: CreateWorkspaceBody,
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
  const invitation = await db.transaction().execute(async (trx) => {
    await trx.insertInto("workspaces").values(row).execute();
    return input.send_invitation ? queueInvitation(trx, services, row, plan) : null;
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

/** Changes only the given fields (name, status active|suspended); an empty change changes nothing. */
export async function updateWorkspace(
  db: Db,
  clock: Clock,
  principal: Principal,
  workspaceId: string,
  input: UpdateWorkspaceBody,
): Promise<Workspace> {
  const row = await loadWorkspaceFor(db, principal, workspaceId);
  const changes: Partial<Pick<WorkspaceTable, "name" | "status">> = {};
  if (input.name !== undefined && input.name !== row.name) changes.name = input.name;
  if (input.status !== undefined && input.status !== row.status) changes.status = input.status;
  if (Object.keys(changes).length > 0) {
    await db
      .updateTable("workspaces")
      .set({ ...changes, updated_at: isoSeconds(clock.now()) })
      .where("id", "=", row.id)
      .execute();
  }
  return readWorkspace(db, row.id);
}
