import { sql } from "kysely";
import { quoted } from "../../contract/errors.js";
import type { Db } from "../db/database.js";
import type { WorkspaceTable } from "../db/schema.js";
import { ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";

/** A stored workspace as every feature inside a workspace receives it. */
export type WorkspaceRow = WorkspaceTable;

/** Statuses in which a workspace takes writes (contacts, templates, campaigns…). */
const writableStatuses: ReadonlySet<string> = new Set(["active", "trial"]);

function notFound(workspaceId: string): ServiceError {
  return new ServiceError("not_found", `Workspace ${quoted(workspaceId)} was not found.`);
}

/** Whether a principal may see a workspace: its own reseller's, and for a workspace token only its own. */
export function canSeeWorkspace(
  principal: Principal,
  workspace: Pick<WorkspaceRow, "id" | "reseller_id">,
): boolean {
  if (workspace.reseller_id !== principal.resellerId) return false;
  return principal.workspaceId === null || principal.workspaceId === workspace.id;
}

/**
 * The workspace `workspaceId` as the principal may see it. Another reseller's workspace, or
 * another workspace than a workspace token's own, is a 404 exactly like a missing one, so an
 * id never reveals that it exists elsewhere.
 */
export async function loadWorkspaceFor(
  db: Db,
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceRow> {
  // SQL text rather than the query builder: most requests run this, and building the query cost
  // more than running it.
  const { rows } = await sql<WorkspaceRow>`SELECT * FROM workspaces
    WHERE id = ${workspaceId} AND reseller_id = ${principal.resellerId}`.execute(db);
  const row = rows[0];
  if (!row || !canSeeWorkspace(principal, row)) throw notFound(workspaceId);
  return row;
}

/**
 * Workspaces found to belong to a reseller (`reseller id` NUL `workspace id`), per database: a
 * workspace is never deleted nor moved to another reseller, so what was found stays true.
 */
const knownWorkspaces = new WeakMap<Db, Set<string>>();

/**
 * The id of the workspace `workspaceId` when the principal may see it (else 404 as
 * loadWorkspaceFor), for a read that needs nothing else of it: a busy list then costs no
 * lookup once the workspace has been found.
 */
export async function visibleWorkspaceId(
  db: Db,
  principal: Principal,
  workspaceId: string,
): Promise<string> {
  if (principal.workspaceId !== null && principal.workspaceId !== workspaceId) {
    throw notFound(workspaceId);
  }
  let known = knownWorkspaces.get(db);
  if (!known) {
    known = new Set();
    knownWorkspaces.set(db, known);
  }
  const key = `${principal.resellerId}\0${workspaceId}`;
  if (known.has(key)) return workspaceId;
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  if (known.size >= 10_000) known.clear();
  known.add(key);
  return workspace.id;
}

/** Whether a workspace in this status takes writes (active or trial). */
export function takesWrites(status: string): boolean {
  return writableStatuses.has(status);
}

/** Refuses a write to a suspended or archived workspace with 409 workspace_not_active. */
export function requireActiveWorkspace(workspace: WorkspaceRow): WorkspaceRow {
  if (!takesWrites(workspace.status)) {
    throw new ServiceError(
      "workspace_not_active",
      `Workspace '${workspace.id}' is ${workspace.status}; only an active or trial workspace takes this change. Reactivate it first.`,
    );
  }
  return workspace;
}

/**
 * A write about the workspace itself (its name, a new token): a client's own token makes it only
 * while the workspace is active or trial (else 409), as every write inside it; the reseller's
 * token manages the account in any state.
 */
export function requireActiveForClient(principal: Principal, workspace: WorkspaceRow): void {
  if (principal.workspaceId !== null) requireActiveWorkspace(workspace);
}

/** The workspace for a write: visible to the principal (else 404) and active or trial (else 409). */
export async function loadActiveWorkspaceFor(
  db: Db,
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceRow> {
  return requireActiveWorkspace(await loadWorkspaceFor(db, principal, workspaceId));
}

/**
 * Refuses an action that reaches beyond one workspace (creating workspaces, managing reseller
 * tokens) to a workspace token, whatever its scopes: 403 insufficient_scope.
 */
export function requireResellerToken(principal: Principal, action: string): void {
  if (principal.workspaceId !== null) {
    throw new ServiceError(
      "insufficient_scope",
      `A workspace token cannot ${action}; use a reseller token (rsk_…).`,
    );
  }
}
