import type { Db } from "../db/database.js";
import type { SandboxMessageTable } from "../db/tables/campaigns.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { newId } from "../domain/ids.js";
import { sendOutcomeForCode } from "../messaging/graph-errors.js";
import {
  endsTheBatch,
  type MessageSender,
  notTried,
  type OutboundMessage,
  type SendOutcome,
} from "../messaging/message-sender.js";
import { graphErrorFor, refusalFor, reportsFor } from "./magic-numbers.js";

/** How quickly the sandbox reports deliveries and reads. */
export interface SandboxTiming {
  deliveredAfterMs: number;
  readAfterMs: number;
}

export const defaultSandboxTiming: SandboxTiming = { deliveredAfterMs: 1000, readAfterMs: 2000 };

/**
 * The sandbox operator's sending: it logs each accepted message once per idempotency key in
 * `sandbox_messages` (its stand-in for the outside world) and plans its delivery reports.
 */
export function sandboxSender(deps: {
  db: Db;
  clock: Clock;
  timing: SandboxTiming;
  /** Makes sure a reports job will run by `at`. */
  scheduleReports(at: Date): Promise<void>;
}): MessageSender {
  // Keys whose first attempt met a one-time error (4004, 4005); the next attempt goes through.
  const retried = new Set<string>();
  return {
    async send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]> {
      const now = deps.clock.now();
      const acceptedAt = isoSeconds(now);
      const reportAt = new Date(now.getTime() + deps.timing.deliveredAfterMs);
      const outcomes: SendOutcome[] = [];
      const accepted: Array<{ index: number; row: SandboxMessageTable }> = [];
      let wall: SendOutcome | null = null;
      for (const message of messages) {
        const refusal = refusalFor(message.to);
        const error = refusal ? null : graphErrorFor(message.to);
        if (wall) {
          // As the Cloud API adapter: after a rate limit or a campaign-wide refusal the rest of
          // the batch is not tried (it stays queued, or fails with the campaign).
          outcomes.push(notTried(wall));
        } else if (refusal) {
          outcomes.push({ status: "failed", ...refusal });
        } else if (error && !(error.firstAttemptOnly && retried.has(message.idempotencyKey))) {
          if (error.firstAttemptOnly) retried.add(message.idempotencyKey);
          const outcome = sendOutcomeForCode(error.code);
          if (endsTheBatch(outcome)) wall = outcome;
          outcomes.push(outcome);
        } else {
          const delivers = reportsFor(message.to).delivered;
          const id = newId("msg");
          outcomes.push({ status: "accepted", providerMessageId: id });
          accepted.push({
            index: outcomes.length - 1,
            row: {
              id,
              idempotency_key: message.idempotencyKey,
              channel_id: message.channelId,
              to_phone: message.to,
              body: message.body,
              accepted_at: acceptedAt,
              next_status: delivers ? "delivered" : null,
              next_status_at: delivers ? reportAt.toISOString() : null,
              status: "sent",
            },
          });
        }
      }
      if (accepted.length === 0) return outcomes;
      // One statement per batch; a key seen before keeps its message, and the operator answers
      // with the id it accepted then.
      const keys = accepted.map((a) => a.row.idempotency_key);
      const known = await deps.db.transaction().execute(async (trx) => {
        await trx
          .insertInto("sandbox_messages")
          .values(accepted.map((a) => a.row))
          .onConflict((oc) => oc.column("idempotency_key").doNothing())
          .execute();
        return trx
          .selectFrom("sandbox_messages")
          .select(["id", "idempotency_key", "next_status"])
          .where("idempotency_key", "in", keys)
          .execute();
      });
      const idOf = new Map(known.map((k) => [k.idempotency_key, k]));
      let reports = false;
      for (const { index, row } of accepted) {
        const stored = idOf.get(row.idempotency_key);
        if (stored && stored.id !== row.id) {
          outcomes[index] = { status: "accepted", providerMessageId: stored.id };
        } else reports ||= row.next_status !== null;
      }
      if (reports) await deps.scheduleReports(reportAt);
      return outcomes;
    },
  };
}
