import type { Channel, ChannelProvider, CreateChannelBody } from "../../contract/channels.js";
import { quoted } from "../../contract/errors.js";
import type { Db } from "../db/database.js";
import type { PageRequest } from "../db/keyset-paging.js";
import { paginate } from "../db/keyset-paging.js";
import type { ChannelTable } from "../db/tables/campaigns.js";
import { isWriteConflict } from "../db/write-conflicts.js";
import { ensureJob } from "../jobs/ensure-job.js";
import { whatsappSyncJob } from "../jobs/job-kinds.js";
import type { ConnectedNumber } from "../messaging/provider.js";
import type { MessagingProviders } from "../messaging/provider-routing.js";

import type { JobScheduler } from "../services.js";
import { type Clock, isoSeconds } from "./clock.js";
import { recordWorkspaceEvent } from "./events.js";
import { newId } from "./ids.js";
import { channelExists, ServiceError } from "./service-error.js";
import { reviewUnsubmittedTemplatesNow } from "./templates.js";
import type { Principal } from "./tokens.js";
import { loadActiveWorkspaceFor, loadWorkspaceFor } from "./workspace-access.js";

/** A channel as the API shows it: never its access token. */
export function toChannel(row: ChannelTable): Channel {
  return {
    id: row.id,
    phone: row.phone,
    name: row.name,
    status: row.status as Channel["status"],
    provider: row.provider as ChannelProvider,
    phone_number_id: row.phone_number_id ?? null,
    waba_id: row.waba_id ?? null,
    verified_name: row.verified_name ?? null,
    quality_rating: row.quality_rating ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What connecting a channel needs: the database, time, the operators, the job queue. */
export interface ChannelServices {
  db: Db;
  clock: Clock;
  messaging: MessagingProviders;
  jobs: JobScheduler;
}

async function refuseTakenPhone(db: Db, workspaceId: string, phone: string, field: string) {
  const existing = await db
    .selectFrom("channels")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("phone", "=", phone)
    .executeTakeFirst();
  if (existing) throw channelExists(field, `as channel ${existing.id}`);
}

/**
 * Connects a number to a workspace once its operator has checked it: a sandbox number is valid
 * E.164; a WhatsApp Cloud API number is confirmed by the Graph API (its display number and
 * verified name are kept, its token sealed). A cloud channel Meta disconnected (its token
 * refused) is connected again, same id, by adding its number again with a fresh token.
 */
export async function createChannel(
  deps: ChannelServices,
  principal: Principal,
  workspaceId: string,
  body: CreateChannelBody,
): Promise<{ channel: Channel; reconnected: boolean }> {
  const workspace = await loadActiveWorkspaceFor(deps.db, principal, workspaceId);
  const provider = deps.messaging.of(body.provider);
  const number = await provider.connectNumber(workspace.id, body);
  const disconnected = number.phone_number_id
    ? await deps.db
        .selectFrom("channels")
        .selectAll()
        .where("workspace_id", "=", workspace.id)
        .where("provider", "=", provider.kind)
        .where("phone_number_id", "=", number.phone_number_id)
        .where("status", "=", "disconnected")
        .executeTakeFirst()
    : undefined;
  if (disconnected) {
    return { channel: await reconnect(deps, disconnected, number, body.name), reconnected: true };
  }
  // The number is named by the field it came from: `phone`, or Meta's answer for the id.
  const phoneField = body.phone !== undefined ? "phone" : "phone_number_id";
  await refuseTakenPhone(deps.db, workspace.id, number.phone, phoneField);
  const now = isoSeconds(deps.clock.now());
  const row: ChannelTable = {
    id: newId("ch"),
    workspace_id: workspace.id,
    // Meta's name is not checked as a request's is: an empty one gives way, a long one is cut.
    name: body.name ?? (number.verified_name?.trim().slice(0, 100) || number.phone),
    status: "connected",
    provider: provider.kind,
    ...number,
    created_at: now,
    updated_at: now,
  };
  try {
    await deps.db.transaction().execute(async (trx) => {
      await trx.insertInto("channels").values(row).execute();
      await recordWorkspaceEvent(
        trx,
        deps.clock,
        row.workspace_id,
        "channel.connected",
        toChannel(row),
      );
      // The periodic template sync (missed webhooks) runs while any cloud channel exists.
      if (provider.kind === "whatsapp_cloud") {
        await ensureJob(trx, deps.jobs, whatsappSyncJob, deps.clock.now());
      }
    });
  } catch (error) {
    // A request connecting the same number committed between the check and the insert (several
    // at once on PostgreSQL): answered as a later request is, not as a lost race.
    if (isWriteConflict(error)) {
      await refuseTakenPhone(deps.db, workspace.id, number.phone, phoneField);
    }
    throw error;
  }
  deps.jobs.poke();
  return { channel: toChannel(row), reconnected: false };
}

/** A disconnected channel connected again with what the operator confirmed (a fresh token). */
async function reconnect(
  deps: ChannelServices,
  channel: ChannelTable,
  number: ConnectedNumber,
  name: string | undefined,
): Promise<Channel> {
  const row: ChannelTable = {
    ...channel,
    ...number,
    name: name ?? channel.name,
    status: "connected",
    updated_at: isoSeconds(deps.clock.now()),
  };
  await deps.db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("channels")
      .set({ ...number, name: row.name, status: "connected", updated_at: row.updated_at })
      .where("id", "=", channel.id)
      .where("status", "=", "disconnected")
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) {
      throw channelExists("phone_number_id", `as channel ${channel.id}`);
    }
    await reviewUnsubmittedTemplatesNow(trx, channel.workspace_id, deps.clock.now());
    await recordWorkspaceEvent(
      trx,
      deps.clock,
      row.workspace_id,
      "channel.connected",
      toChannel(row),
    );
  });
  deps.jobs.poke();
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

/** One channel of a workspace the caller may see. */
export async function getChannel(
  db: Db,
  principal: Principal,
  workspaceId: string,
  channelId: string,
): Promise<Channel> {
  const workspace = await loadWorkspaceFor(db, principal, workspaceId);
  return toChannel(await loadChannel(db, workspace.id, channelId));
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
  if (!row) throw new ServiceError("not_found", `Channel ${quoted(channelId)} was not found.`);
  return row;
}

/**
 * Marks a cloud channel disconnected (Meta refused its token); answers whether it changed.
 * `refusedToken` is the stored (sealed) token Meta refused, when known: a channel connected again
 * with a fresh token meanwhile (a sync round or a review still under way with the old one) stays
 * connected.
 */
export async function disconnectChannel(
  db: Db,
  clock: Clock,
  channelId: string,
  refusedToken?: string | null,
): Promise<boolean> {
  // The change and its channel.disconnected event commit together (see events.ts).
  const apply = async (trx: Db): Promise<boolean> => {
    let update = trx
      .updateTable("channels")
      .set({ status: "disconnected", updated_at: isoSeconds(clock.now()) })
      .where("id", "=", channelId)
      .where("status", "=", "connected");
    if (refusedToken) update = update.where("access_token_encrypted", "=", refusedToken);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    const row = await trx
      .selectFrom("channels")
      .selectAll()
      .where("id", "=", channelId)
      .executeTakeFirstOrThrow();
    await recordWorkspaceEvent(
      trx,
      clock,
      row.workspace_id,
      "channel.disconnected",
      toChannel(row),
    );
    return true;
  };
  return db.isTransaction ? apply(db) : db.transaction().execute(apply);
}
