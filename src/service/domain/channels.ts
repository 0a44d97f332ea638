import type { Channel, CreateChannelBody } from "../../contract/channels.js";
import { checkE164 } from "../../contract/phones.js";
import type { Db } from "../db/database.js";
import type { PageRequest } from "../db/keyset-paging.js";
import { paginate } from "../db/keyset-paging.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor } from "./workspace-access.js";

/** A channel as the API shows it. */
export function toChannel(row: ChannelTable): Channel {
  return {
    id: row.id,
    phone: row.phone,
    name: row.name,
    status: row.status as Channel["status"],
    provider: row.provider,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Connects a number to a workspace (locally, through the sandbox operator). */
export async function createChannel(
  deps: { db: Db; clock: Clock; provider: string },
  principal: Principal,
  workspaceId: string,
  body: CreateChannelBody,
): Promise<Channel> {
  const workspace = await loadActiveWorkspaceFor(deps.db, principal, workspaceId);
  const phone = checkE164(body.phone);
  if (!phone.ok) throw invalidField("phone", phone.message);
  const existing = await deps.db
    .selectFrom("channels")
    .select("id")
    .where("workspace_id", "=", workspace.id)
    .where("phone", "=", phone.e164)
    .executeTakeFirst();
  if (existing) {
    throw invalidField("phone", `is already connected as channel ${existing.id}`);
  }
  const now = isoSeconds(deps.clock.now());
  const row: ChannelTable = {
    id: newId("ch"),
    workspace_id: workspace.id,
    phone: phone.e164,
    name: body.name,
    status: "connected",
    provider: deps.provider,
    created_at: now,
    updated_at: now,
  };
  await deps.db.insertInto("channels").values(row).execute();
  return toChannel(row);
}

/** The workspace's channels, newest first. */
export async function listChannels(
  db: Db,
  principal: Principal,
  workspaceId: string,
  page: PageRequest,
) {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  const result = await paginate(
    db.selectFrom("channels").selectAll().where("workspace_id", "=", workspace.id),
    "id",
    page,
  );
  return { ...result, rows: result.rows.map(toChannel) };
}

/** A channel of the workspace, or 404. */
export async function loadChannel(
  db: Db,
  workspaceId: string,
  channelId: string,
): Promise<ChannelTable> {
  const row = await db
    .selectFrom("channels")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", channelId)
    .executeTakeFirst();
  if (!row) throw new ServiceError("not_found", `Channel '${channelId}' was not found.`);
  return row;
}
