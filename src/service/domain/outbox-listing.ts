import type { OutboxEmail } from "../../contract/outbox.js";
import type { ListMeta } from "../../contract/pagination.js";
import type { Db } from "../db/database.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { OutboxTable } from "../db/schema.js";
import type { Principal } from "./tokens.js";

function toEmail(row: OutboxTable): OutboxEmail {
  return {
    id: row.id,
    kind: row.kind,
    workspace_id: row.workspace_id,
    to: row.recipient,
    subject: row.subject,
    text: row.body,
    delivery: row.delivery as OutboxEmail["delivery"],
    error: row.error,
    created_at: row.created_at,
    sent_at: row.sent_at,
  };
}

/** The caller's outbox (invitations), newest first; a workspace token sees its workspace's. */
export async function listOutbox(
  db: Db,
  principal: Principal,
  query: PageRequest & { workspace_id?: string | undefined },
): Promise<{ data: OutboxEmail[]; meta: ListMeta }> {
  let select = db.selectFrom("outbox").selectAll().where("reseller_id", "=", principal.resellerId);
  if (principal.workspaceId !== null)
    select = select.where("workspace_id", "=", principal.workspaceId);
  if (query.workspace_id !== undefined)
    select = select.where("workspace_id", "=", query.workspace_id);
  const page = await paginate(select, "outbox.id", query);
  return { data: page.rows.map(toEmail), meta: { pagination: page.pagination } };
}
