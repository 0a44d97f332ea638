import { sql } from "kysely";
import { quoted } from "../../contract/errors.js";
import type { Event, EventType } from "../../contract/events.js";
import type { ListMeta } from "../../contract/pagination.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { EventTable, WebhookEndpointTable } from "../db/tables/events.js";
import { tryLockNamed } from "../db/write-conflicts.js";
import { webhookDeliveryJob } from "../jobs/job-kinds.js";
import { enqueueJob } from "../jobs/job-queue.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import { ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";

/** How long the event log keeps events. */
export const eventRetentionMs = 30 * 86_400_000;

/** What happened: the reseller and workspace it concerns and the resource as the API shows it. */
export interface EventInput {
  resellerId: string;
  workspaceId: string | null;
  type: EventType;
  data: object;
}

/** An event as the API shows it. */
export function toEvent(row: EventTable): Event {
  return {
    id: row.id,
    type: row.type as EventType,
    created_at: row.created_at,
    workspace_id: row.workspace_id,
    data: parseJson(row.data),
  };
}

/** Whether an endpoint's `events` selection (JSON text) takes this type. */
export function subscribes(selection: WebhookEndpointTable["events"], type: string): boolean {
  const types = parseJson(selection);
  return types.includes("*") || types.includes(type);
}

/** Queues one delivery of an event to an endpoint, with the job that makes it. */
export async function queueDelivery(
  trx: Db,
  clock: Clock,
  eventId: string,
  endpointId: string,
): Promise<string> {
  const now = isoSeconds(clock.now());
  const id = newId("wd");
  await trx
    .insertInto("webhook_deliveries")
    .values({
      id,
      event_id: eventId,
      endpoint_id: endpointId,
      state: "pending",
      attempts: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  // One delivery at a time per endpoint: a receiver that never answers holds one slot.
  await enqueueJob(trx, clock, {
    kind: webhookDeliveryJob,
    payload: { delivery_id: id },
    serialKey: deliverySerialKey(endpointId),
  });
  return id;
}

/** The serial key of an endpoint's deliveries: one runs at a time (migration 0025 backfills it). */
export function deliverySerialKey(endpointId: string): string {
  return `webhook-endpoint:${endpointId}`;
}

/**
 * Records an event and queues its delivery to every enabled endpoint of the reseller that
 * subscribes to its type. Call it with the transaction of the change it reports, so an event
 * exists exactly when the change does.
 */
export async function recordEvent(trx: Db, clock: Clock, input: EventInput): Promise<string> {
  const id = newId("evt");
  await trx
    .insertInto("events")
    .values({
      id,
      reseller_id: input.resellerId,
      workspace_id: input.workspaceId,
      type: input.type,
      data: JSON.stringify(input.data),
      created_at: isoSeconds(clock.now()),
    })
    .execute();
  const endpoints = await trx
    .selectFrom("webhook_endpoints")
    .select(["id", "events"])
    .where("reseller_id", "=", input.resellerId)
    .where("enabled", "=", 1)
    .execute();
  for (const endpoint of endpoints) {
    if (subscribes(endpoint.events, input.type)) await queueDelivery(trx, clock, id, endpoint.id);
  }
  return id;
}

/** The reseller a workspace belongs to, for code that knows only the workspace. */
export async function resellerOfWorkspace(db: Db, workspaceId: string): Promise<string | null> {
  const row = await db
    .selectFrom("workspaces")
    .select("reseller_id")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return row?.reseller_id ?? null;
}

/** Records an event about a workspace's resource (looks the reseller up; nothing when it is gone). */
export async function recordWorkspaceEvent(
  trx: Db,
  clock: Clock,
  workspaceId: string,
  type: EventType,
  data: object,
): Promise<void> {
  const resellerId = await resellerOfWorkspace(trx, workspaceId);
  if (resellerId !== null) await recordEvent(trx, clock, { resellerId, workspaceId, type, data });
}

function visibleEvents(db: Db, clock: Clock, principal: Principal) {
  let select = db
    .selectFrom("events")
    .selectAll()
    .where("reseller_id", "=", principal.resellerId)
    .where("created_at", ">=", isoSeconds(new Date(clock.now().getTime() - eventRetentionMs)));
  if (principal.workspaceId !== null) {
    select = select.where("workspace_id", "=", principal.workspaceId);
  }
  return select;
}

/** The event log, newest first, of the last 30 days; a workspace token sees its workspace's. */
export async function listEvents(
  db: Db,
  clock: Clock,
  principal: Principal,
  query: PageRequest & { type?: string | undefined; workspace_id?: string | undefined },
): Promise<{ data: Event[]; meta: ListMeta }> {
  let select = visibleEvents(db, clock, principal);
  if (query.type !== undefined) select = select.where("type", "=", query.type);
  if (query.workspace_id !== undefined) {
    select = select.where("workspace_id", "=", query.workspace_id);
  }
  const page = await paginate(select, "id", query);
  return { data: page.rows.map(toEvent), meta: { pagination: page.pagination } };
}

/** One event of the caller's (404 when unknown, another reseller's, or older than 30 days). */
export async function loadEvent(
  db: Db,
  clock: Clock,
  principal: Principal,
  eventId: string,
): Promise<EventTable> {
  const row = await visibleEvents(db, clock, principal)
    .where("id", "=", eventId)
    .executeTakeFirst();
  if (!row) throw new ServiceError("not_found", `Event ${quoted(eventId)} was not found.`);
  return row;
}

/** Where a live stream stands: the last event it sent (its id, as SSE shows it) and its place. */
export interface StreamPosition {
  id: string;
  seq: number;
}

/**
 * Gives the events committed since the last call their places in the live stream's order: one
 * run at a time in a process, and on the database (SQLite's write lock; on PostgreSQL a try-lock,
 * whose holder places what another instance found waiting). An event's place follows its commit,
 * not its id, so a stream never passes an event that commits late.
 */
export function sequenceEvents(db: Db): Promise<void> {
  // Every open stream asks twice a second: one run at a time per process does for all of them.
  let running = sequencing.get(db);
  if (!running) {
    running = placeEvents(db).finally(() => sequencing.delete(db));
    sequencing.set(db, running);
  }
  return running;
}

const sequencing = new WeakMap<Db, Promise<void>>();

/** The `settings` row holding the last place given. */
const sequenceCounter = "event_sequence";

/**
 * Events placed per transaction: the first stream after a quiet time (events are placed only
 * while one is open) may find a large import's or campaign's worth waiting, and one statement
 * over all of them would hold SQLite's write lock for as long.
 */
export const eventsPlacedPerRun = 5000;

async function placeEvents(db: Db): Promise<void> {
  // Placed in runs until none waits (or another instance holds the lock and places them).
  while (await placeSomeEvents(db)) {}
}

/** Places up to eventsPlacedPerRun waiting events; whether a full run was placed (more may wait). */
async function placeSomeEvents(db: Db): Promise<boolean> {
  const waiting = await db
    .selectFrom("events")
    .select("id")
    .where("seq", "is", null)
    .limit(1)
    .executeTakeFirst();
  if (!waiting) return false;
  return db.transaction().execute(async (trx) => {
    // Another instance placing them now places these too, or leaves them to the next call.
    if (!(await tryLockNamed(trx, "event-sequence"))) return false;
    // The counter is kept apart from the events too: pruning the newest of them must not make a
    // place be given twice. (Before its first use, the places migration 0020 gave are the last.)
    const counter = await trx
      .selectFrom("settings")
      .select("value")
      .where("key", "=", sequenceCounter)
      .executeTakeFirst();
    const placed = await trx
      .selectFrom("events")
      .select((eb) => eb.fn.max("seq").as("top"))
      .executeTakeFirst();
    const last = Math.max(Number(counter?.value ?? 0), Number(placed?.top ?? 0));
    const result = await sql`UPDATE events SET seq = ${last} + ordered.n
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM events WHERE seq IS NULL
        ORDER BY id LIMIT ${eventsPlacedPerRun}) AS ordered
      WHERE events.id = ordered.id`.execute(trx);
    const count = Number(result.numAffectedRows ?? 0);
    if (count === 0) return false;
    const top = String(last + count);
    await trx
      .insertInto("settings")
      .values({ key: sequenceCounter, value: top })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: top }))
      .execute();
    return count === eventsPlacedPerRun;
  });
}

/** The caller's events placed after `afterSeq`, in stream order: what the live stream sends next. */
export async function eventsAfter(
  db: Db,
  principal: Principal,
  afterSeq: number,
  types: readonly string[],
  limit = 100,
): Promise<{ event: Event; position: StreamPosition }[]> {
  let select = db
    .selectFrom("events")
    .selectAll()
    .where("reseller_id", "=", principal.resellerId)
    .where("seq", ">", afterSeq);
  if (principal.workspaceId !== null) {
    select = select.where("workspace_id", "=", principal.workspaceId);
  }
  if (types.length > 0) select = select.where("type", "in", types);
  const rows = await select.orderBy("seq").limit(limit).execute();
  return rows.map((row) => ({
    event: toEvent(row),
    position: { id: row.id, seq: Number(row.seq) },
  }));
}

/**
 * Where a live stream starts: after the event a reconnecting client names (`Last-Event-ID`),
 * else after the caller's newest event ({ id: "", seq: 0 } without one). A named event that is
 * gone (older than 30 days) or unknown stands for the place of the caller's last event before it.
 */
export async function streamStart(
  db: Db,
  principal: Principal,
  lastEventId: string | undefined,
): Promise<StreamPosition> {
  await sequenceEvents(db);
  const own = db
    .selectFrom("events")
    .select(["id", "seq"])
    .where("reseller_id", "=", principal.resellerId)
    .where("seq", "is not", null);
  if (lastEventId === undefined) {
    const newest = await own.orderBy("seq", "desc").limit(1).executeTakeFirst();
    return newest ? { id: newest.id, seq: Number(newest.seq) } : { id: "", seq: 0 };
  }
  const named = await own.where("id", "=", lastEventId).executeTakeFirst();
  if (named) return { id: named.id, seq: Number(named.seq) };
  const before = await own
    .where("id", "<", lastEventId)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  return { id: lastEventId, seq: before ? Number(before.seq) : 0 };
}

/**
 * Deletes events older than 30 days with their deliveries and attempts, and the webhooks from
 * Meta applied that long ago; returns how many events.
 */
export async function pruneEvents(db: Db, clock: Clock): Promise<number> {
  const cutoff = isoSeconds(new Date(clock.now().getTime() - eventRetentionMs));
  return db.transaction().execute(async (trx) => {
    const old = trx.selectFrom("events").select("id").where("created_at", "<", cutoff);
    await trx.deleteFrom("webhook_attempts").where("event_id", "in", old).execute();
    await trx.deleteFrom("webhook_deliveries").where("event_id", "in", old).execute();
    // Meta's webhooks, once applied, with them: the dedupe of a redelivery (Meta retries for
    // days, not weeks) is all they are still kept for, and they name the people who replied.
    await trx
      .deleteFrom("whatsapp_webhook_events")
      .where("received_at", "<", cutoff)
      .where("applied_at", "is not", null)
      .execute();
    const result = await trx
      .deleteFrom("events")
      .where("created_at", "<", cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

/**
 * Records `contact.opted_out` or `contact.opted_in` when a write moved a contact's consent there
 * from another status (`before` null for a new contact); other writes record nothing.
 */
export async function recordConsentEvent(
  trx: Db,
  clock: Clock,
  workspaceId: string,
  before: string | null,
  contact: { opt_in_status: string },
): Promise<void> {
  const after = contact.opt_in_status;
  if (after === before || (after !== "opted_out" && after !== "opted_in")) return;
  await recordWorkspaceEvent(
    trx,
    clock,
    workspaceId,
    after === "opted_out" ? "contact.opted_out" : "contact.opted_in",
    contact,
  );
}
