import { sql } from "kysely";
import type { Job } from "../../contract/jobs.js";
import type { ListMeta } from "../../contract/pagination.js";
import type { Db } from "../db/database.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { Principal } from "./tokens.js";

/** The payload keys that name a job's subject, and where that subject lives. */
const subjects = [
  { key: "campaign_id", type: "campaign", table: "campaigns" },
  { key: "import_id", type: "contact_import", table: "contact_imports" },
  { key: "template_id", type: "template", table: "templates" },
] as const;

/**
 * Whether a job's payload names a subject of one of the caller's workspaces. Jobs carry no owner
 * of their own, so ownership is the subject's; jobs about no workspace (the sandbox's report
 * sweep) are the service's and listed to nobody. LIKE and `||` keep the SQL portable.
 */
function ownedBy(principal: Principal) {
  return sql<boolean>`(${sql.join(
    subjects.map(
      (
        s,
      ) => sql`exists (select 1 from ${sql.table(s.table)} s join workspaces w on w.id = s.workspace_id
        where w.reseller_id = ${principal.resellerId}
        ${principal.workspaceId === null ? sql`` : sql`and w.id = ${principal.workspaceId}`}
        and jobs.payload like ${`%"${s.key}":"`} || s.id || '"%')`,
    ),
    sql` or `,
  )})`;
}

async function subjectOf(db: Db, payload: string): Promise<Job["subject"] | null> {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return null;
  }
  for (const s of subjects) {
    const id = parsed[s.key];
    if (typeof id !== "string") continue;
    const row = await db
      .selectFrom(s.table)
      .select("workspace_id")
      .where("id", "=", id)
      .executeTakeFirst();
    if (row) return { type: s.type, id, workspace_id: row.workspace_id };
  }
  return null;
}

/** The background jobs about the caller's workspaces, newest first, optionally of one state. */
export async function listJobs(
  db: Db,
  principal: Principal,
  query: PageRequest & { state?: Job["state"] | undefined },
): Promise<{ data: Job[]; meta: ListMeta }> {
  let select = db
    .selectFrom("jobs")
    .select([
      "id",
      "kind",
      "state",
      "payload",
      "attempts",
      "run_at",
      "last_error",
      "created_at",
      "updated_at",
    ])
    .where(ownedBy(principal));
  if (query.state !== undefined) select = select.where("state", "=", query.state);
  const page = await paginate(select, "jobs.id", query);
  const data: Job[] = [];
  for (const row of page.rows) {
    const subject = await subjectOf(db, row.payload);
    if (!subject) continue;
    const { payload: _payload, ...job } = row;
    data.push({ ...job, state: row.state as Job["state"], subject });
  }
  return { data, meta: { pagination: page.pagination } };
}
