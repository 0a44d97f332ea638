import { quoted } from "../../contract/errors.js";
import type { ListMeta } from "../../contract/pagination.js";
import type {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
} from "../../contract/webhooks.js";
import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { type PageRequest, paginate } from "../db/keyset-paging.js";
import type { WebhookAttemptTable, WebhookEndpointTable } from "../db/tables/events.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import type { SecretBox } from "./secret-box.js";
import { invalidField, ServiceError } from "./service-error.js";
import type { Principal } from "./tokens.js";
import {
  isPlainSigningSecret,
  newWebhookSecret,
  signingSecretHint,
  storedSigningSecret,
} from "./webhook-secrets.js";
import { privateUrlReason, type Resolver } from "./webhook-url-guard.js";
import { requireResellerToken } from "./workspace-access.js";

/** What the endpoint rules need: the database, time, and whether private addresses are refused. */
export interface WebhookEndpointServices {
  db: Db;
  clock: Clock;
  blockPrivateWebhooks: boolean;
  /** Tests only: how host names resolve for the private-address check. */
  resolver?: Resolver | undefined;
  /** Seals signing secrets at rest when the service has RESELLER_SECRET_KEY. */
  secrets?: SecretBox | null | undefined;
}

/** How deliveries to an endpoint are going: what is owed, and how the latest POST went. */
type EndpointHealth = Pick<WebhookEndpoint, "pending_deliveries" | "last_attempt">;

/** A new endpoint's health: nothing owed, nothing tried. */
const untried: EndpointHealth = { pending_deliveries: 0, last_attempt: null };

/** An endpoint as the API shows it (never its secret). */
function toWebhookEndpoint(row: WebhookEndpointTable, health: EndpointHealth): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: parseJson(row.events),
    description: row.description,
    enabled: row.enabled === 1,
    secret_hint: signingSecretHint(row.secret),
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...health,
  };
}

/** Each endpoint with its health, two indexed reads each (a reseller has a handful). */
async function withHealth(
  db: Db,
  rows: readonly WebhookEndpointTable[],
): Promise<WebhookEndpoint[]> {
  return Promise.all(
    rows.map(async (row) => {
      const owed = await db
        .selectFrom("webhook_deliveries")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("endpoint_id", "=", row.id)
        .where("state", "=", "pending")
        .executeTakeFirst();
      const last = await db
        .selectFrom("webhook_attempts")
        .selectAll()
        .where("endpoint_id", "=", row.id)
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      return toWebhookEndpoint(row, {
        pending_deliveries: Number(owed?.n ?? 0),
        last_attempt: last ? toAttempt(last) : null,
      });
    }),
  );
}

/** One endpoint with its health. */
async function withHealthOne(db: Db, row: WebhookEndpointTable): Promise<WebhookEndpoint> {
  const [endpoint] = await withHealth(db, [row]);
  return endpoint as WebhookEndpoint;
}

function toAttempt(row: WebhookAttemptTable): WebhookDeliveryAttempt {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    delivered: row.delivered === 1,
    created_at: row.created_at,
  };
}

/** `["*"]` alone when it is there, otherwise the types once each, in the order given. */
function normaliseSelection(events: readonly string[]): string[] {
  return events.includes("*") ? ["*"] : [...new Set(events)];
}

async function checkUrl(services: WebhookEndpointServices, url: string): Promise<void> {
  if (!services.blockPrivateWebhooks) return;
  const reason = await privateUrlReason(url, services.resolver);
  if (reason) throw invalidField("url", reason);
}

/** The caller's endpoint (404 for an unknown or another reseller's one). */
export async function loadWebhookEndpoint(
  db: Db,
  principal: Principal,
  endpointId: string,
): Promise<WebhookEndpointTable> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", endpointId)
    .where("reseller_id", "=", principal.resellerId)
    .executeTakeFirst();
  if (!row)
    throw new ServiceError("not_found", `Webhook endpoint ${quoted(endpointId)} was not found.`);
  return row;
}

/** Adds an endpoint; the answer carries its signing secret, shown this once. */
export async function createWebhookEndpoint(
  services: WebhookEndpointServices,
  principal: Principal,
  body: CreateWebhookEndpointBody,
): Promise<WebhookEndpoint & { secret: string }> {
  requireResellerToken(principal, "manage webhook endpoints");
  await checkUrl(services, body.url);
  const now = isoSeconds(services.clock.now());
  const secret = newWebhookSecret();
  const row: WebhookEndpointTable = {
    id: newId("we"),
    reseller_id: principal.resellerId,
    url: body.url,
    events: JSON.stringify(normaliseSelection(body.events)),
    description: body.description ?? null,
    enabled: 1,
    secret: storedSigningSecret(secret, services.secrets ?? null),
    created_at: now,
    updated_at: now,
  };
  await services.db.insertInto("webhook_endpoints").values(row).execute();
  return { ...toWebhookEndpoint(row, untried), secret };
}

/** The reseller's endpoints, newest first. */
export async function listWebhookEndpoints(
  db: Db,
  principal: Principal,
  query: PageRequest,
): Promise<{ data: WebhookEndpoint[]; meta: ListMeta }> {
  requireResellerToken(principal, "manage webhook endpoints");
  const select = db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("reseller_id", "=", principal.resellerId);
  const page = await paginate(select, "id", query);
  return { data: await withHealth(db, page.rows), meta: { pagination: page.pagination } };
}

/** One endpoint. */
export async function getWebhookEndpoint(
  db: Db,
  principal: Principal,
  endpointId: string,
): Promise<WebhookEndpoint> {
  requireResellerToken(principal, "manage webhook endpoints");
  return withHealthOne(db, await loadWebhookEndpoint(db, principal, endpointId));
}

/** Changes only the given fields; a disabled endpoint gets no new deliveries. */
export async function updateWebhookEndpoint(
  services: WebhookEndpointServices,
  principal: Principal,
  endpointId: string,
  body: UpdateWebhookEndpointBody,
): Promise<WebhookEndpoint> {
  requireResellerToken(principal, "manage webhook endpoints");
  const row = await loadWebhookEndpoint(services.db, principal, endpointId);
  if (body.url !== undefined) await checkUrl(services, body.url);
  const changes: Partial<WebhookEndpointTable> = {};
  if (body.url !== undefined) changes.url = body.url;
  if (body.events !== undefined) changes.events = JSON.stringify(normaliseSelection(body.events));
  if (body.enabled !== undefined) changes.enabled = body.enabled ? 1 : 0;
  if (body.description !== undefined) changes.description = body.description;
  if (Object.keys(changes).length > 0) {
    changes.updated_at = isoSeconds(services.clock.now());
    await services.db
      .updateTable("webhook_endpoints")
      .set(changes)
      .where("id", "=", row.id)
      .execute();
  }
  return withHealthOne(services.db, await loadWebhookEndpoint(services.db, principal, row.id));
}

/** Removes an endpoint; its pending deliveries end unsent, its attempts' history goes with it. */
export async function deleteWebhookEndpoint(
  db: Db,
  principal: Principal,
  endpointId: string,
): Promise<WebhookEndpoint> {
  requireResellerToken(principal, "manage webhook endpoints");
  const row = await loadWebhookEndpoint(db, principal, endpointId);
  // As it was when it went: what it still owed ends unsent.
  const endpoint = await withHealthOne(db, row);
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("webhook_attempts").where("endpoint_id", "=", row.id).execute();
    await trx.deleteFrom("webhook_deliveries").where("endpoint_id", "=", row.id).execute();
    await trx.deleteFrom("webhook_endpoints").where("id", "=", row.id).execute();
  });
  return endpoint;
}

/** The endpoint's delivery attempts, newest first. */
export async function listDeliveryAttempts(
  db: Db,
  principal: Principal,
  endpointId: string,
  query: PageRequest,
): Promise<{ data: WebhookDeliveryAttempt[]; meta: ListMeta }> {
  requireResellerToken(principal, "manage webhook endpoints");
  const endpoint = await loadWebhookEndpoint(db, principal, endpointId);
  const select = db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("endpoint_id", "=", endpoint.id);
  const page = await paginate(select, "id", query);
  return { data: page.rows.map(toAttempt), meta: { pagination: page.pagination } };
}

/**
 * Seals the signing secrets stored in clear before the service had RESELLER_SECRET_KEY, so a
 * key set later protects every endpoint, not only new ones. Each row is changed only from the
 * value read, so instances starting together seal it once. Answers how many were sealed.
 */
export async function sealPlainSigningSecrets(db: Db, secrets: SecretBox): Promise<number> {
  let sealed = 0;
  for (const row of await plainSigningSecrets(db)) {
    const result = await db
      .updateTable("webhook_endpoints")
      .set({ secret: storedSigningSecret(row.secret, secrets) })
      .where("id", "=", row.id)
      .where("secret", "=", row.secret)
      .executeTakeFirst();
    sealed += Number(result.numUpdatedRows);
  }
  return sealed;
}

/** How many endpoints keep their signing secret in clear (told at start when there is no key). */
export async function plainSigningSecretCount(db: Db): Promise<number> {
  return (await plainSigningSecrets(db)).length;
}

async function plainSigningSecrets(db: Db): Promise<{ id: string; secret: string }[]> {
  // Every endpoint is read: an account has tens of them, and the rule of what is sealed stays
  // in webhook-secrets.ts.
  const rows = await db.selectFrom("webhook_endpoints").select(["id", "secret"]).execute();
  return rows.filter((row) => isPlainSigningSecret(row.secret));
}
