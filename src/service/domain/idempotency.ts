import type { Db } from "../db/database.js";
import { parseJson } from "../db/json-text.js";
import { type Clock, isoSeconds } from "./clock.js";

/** How long a key replays its first response. */
export const idempotencyRetentionMs = 24 * 60 * 60 * 1000;

/**
 * How long a claim in progress holds off others. A request running in this process is waited
 * for instead; the lease only matters when the claiming process died mid-request, after which
 * a retry with the same body takes the key over.
 */
const claimLeaseMs = 60_000;

/** A key is per token: two tokens may use the same key for different requests. */
export interface IdempotencyKeyRef {
  tokenId: string;
  key: string;
}

/** A response as first sent, replayed unchanged. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What claiming a key found. */
export type Claim =
  | { outcome: "claimed" }
  | { outcome: "replay"; response: StoredResponse }
  | { outcome: "reused" }
  | { outcome: "in_progress"; retryAfterSeconds: number };

function later(now: Date, ms: number): string {
  return isoSeconds(new Date(now.getTime() + ms));
}

/**
 * Claims a key for a request with this fingerprint, atomically: the first request claims it;
 * later ones get the stored response to replay, `reused` for a different fingerprint, or
 * `in_progress` while the first still runs. An expired key is claimed afresh.
 */
export async function claimIdempotencyKey(
  db: Db,
  clock: Clock,
  ref: IdempotencyKeyRef,
  requestHash: string,
): Promise<Claim> {
  const now = clock.now();
  const nowIso = isoSeconds(now);
  const claim = {
    request_hash: requestHash,
    state: "in_progress",
    response_status: null,
    response_headers: null,
    response_body: null,
    locked_until: later(now, claimLeaseMs),
    created_at: nowIso,
    expires_at: later(now, idempotencyRetentionMs),
  };
  const result = await db
    .insertInto("idempotency_keys")
    .values({ token_id: ref.tokenId, key: ref.key, ...claim })
    .onConflict((oc) =>
      oc
        .columns(["token_id", "key"])
        .doUpdateSet(claim)
        .where((eb) =>
          eb.or([
            eb("idempotency_keys.expires_at", "<=", nowIso),
            eb.and([
              eb("idempotency_keys.state", "=", "in_progress"),
              eb("idempotency_keys.locked_until", "<=", nowIso),
              eb("idempotency_keys.request_hash", "=", requestHash),
            ]),
          ]),
        ),
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return { outcome: "claimed" };

  const row = await db
    .selectFrom("idempotency_keys")
    .selectAll()
    .where("token_id", "=", ref.tokenId)
    .where("key", "=", ref.key)
    .executeTakeFirstOrThrow();
  if (row.request_hash !== requestHash) return { outcome: "reused" };
  if (row.state === "completed" && row.response_status !== null) {
    return {
      outcome: "replay",
      response: {
        status: row.response_status,
        headers: row.response_headers === null ? {} : parseJson(row.response_headers),
        body: row.response_body ?? "",
      },
    };
  }
  const waitMs = Date.parse(row.locked_until) - now.getTime();
  return { outcome: "in_progress", retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * Stores the response of a claimed key, to be replayed until the key expires; `requestHash`
 * replaces the claim's fingerprint when the request's body was hashed as it was read.
 */
export async function completeIdempotencyKey(
  db: Db,
  ref: IdempotencyKeyRef,
  response: StoredResponse,
  requestHash?: string,
): Promise<void> {
  await db
    .updateTable("idempotency_keys")
    .set({
      ...(requestHash === undefined ? {} : { request_hash: requestHash }),
      state: "completed",
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    })
    .where("token_id", "=", ref.tokenId)
    .where("key", "=", ref.key)
    .execute();
}

/** Gives a claimed key back (the request failed on the server's side), so a retry runs again. */
export async function releaseIdempotencyKey(db: Db, ref: IdempotencyKeyRef): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("token_id", "=", ref.tokenId)
    .where("key", "=", ref.key)
    .where("state", "=", "in_progress")
    .execute();
}

/** Deletes keys past their retention, so the table holds about a day of POSTs. */
export async function purgeExpiredIdempotencyKeys(db: Db, clock: Clock): Promise<void> {
  await db
    .deleteFrom("idempotency_keys")
    .where("expires_at", "<=", isoSeconds(clock.now()))
    .execute();
}
