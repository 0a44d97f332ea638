import type { OutboxEmail } from "../../contract/outbox.js";
import type { ListMeta } from "../../contract/pagination.js";
import type { Db } from "../db/database.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { OutboxTable } from "../db/schema.js";
import type { Principal } from "./tokens.js";

/**
 * What a client's workspace token reads of a failed send: that it failed, not the mail server's
 * own words, which name the reseller's hosts and ports (`connect ECONNREFUSED 10.0.3.4:587`).
 */
const failedForClients = "the email could not be sent; the reseller can see why";

function toEmail(row: OutboxTable, principal: Principal): OutboxEmail {
  return {
    id: row.id,
    kind: row.kind,
    workspace_id: row.workspace_id,
    to: row.recipient,
    subject: row.subject,
    text: row.body,
    delivery: row.delivery as OutboxEmail["delivery"],
    error: row.error !== null && principal.workspaceId !== null ? failedForClients : row.error,
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
  return {
    data: page.rows.map((row) => toEmail(row, principal)),
    meta: { pagination: page.pagination },
  };
}
