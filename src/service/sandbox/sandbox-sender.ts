import type BetterSqlite3 from "better-sqlite3";
import type { Db } from "../db/database.js";
import type { SandboxMessageTable } from "../db/tables/campaigns.js";
import { type Clock, isoSeconds } from "../domain/clock.js";
import { newId } from "../domain/ids.js";
import { sendOutcomeForCode } from "../messaging/graph-errors.js";
import type { MessageSender, OutboundMessage, SendOutcome } from "../messaging/message-sender.js";
import { graphErrorFor, refusalFor, reportsFor } from "./magic-numbers.js";

/** How quickly the sandbox reports deliveries and reads. */
export interface SandboxTiming {
  deliveredAfterMs: number;
  readAfterMs: number;
}

export const defaultSandboxTiming: SandboxTiming = { deliveredAfterMs: 1000, readAfterMs: 2000 };

/** The kind of the job that makes the sandbox's delivery and read reports. */
export const sandboxReportsJob = "sandbox.reports";

/**
 * The sandbox operator's sending: it logs each accepted message once per idempotency key in
 * `sandbox_messages` (its stand-in for the outside world) and plans its delivery reports.
 */
export function sandboxSender(deps: {
  db: Db;
  /** The raw handle of `db`'s connection: one prepared insert per message keeps sending cheap. */
  sqlite: BetterSqlite3.Database;
  clock: Clock;
  timing: SandboxTiming;
  /** Makes sure a reports job will run by `at`. */
  scheduleReports(at: Date): Promise<void>;
}): MessageSender {
  const insert = deps.sqlite.prepare<SandboxMessageTable>(
    `INSERT INTO sandbox_messages (id, idempotency_key, channel_id, to_phone, body, accepted_at, next_status, next_status_at, status)
     VALUES (@id, @idempotency_key, @channel_id, @to_phone, @body, @accepted_at, @next_status, @next_status_at, @status)
     ON CONFLICT (idempotency_key) DO NOTHING`,
  );
  const byKey = deps.sqlite.prepare<[string], { id: string }>(
    "SELECT id FROM sandbox_messages WHERE idempotency_key = ?",
  );
  // Keys whose first attempt met a one-time error (4004, 4005); the next attempt goes through.
  const retried = new Set<string>();
  return {
    async send(messages: readonly OutboundMessage[]): Promise<SendOutcome[]> {
      const now = deps.clock.now();
      const acceptedAt = isoSeconds(now);
      const reportAt = new Date(now.getTime() + deps.timing.deliveredAfterMs);
      let reports = false;
      const outcomes = await deps.db.transaction().execute(async () =>
        messages.map((message): SendOutcome => {
          const refusal = refusalFor(message.to);
          if (refusal) return { status: "failed", ...refusal };
          const error = graphErrorFor(message.to);
          if (error && !(error.firstAttemptOnly && retried.has(message.idempotencyKey))) {
            if (error.firstAttemptOnly) retried.add(message.idempotencyKey);
            return sendOutcomeForCode(error.code);
          }
          const delivers = reportsFor(message.to).delivered;
          const id = newId("msg");
          const { changes } = insert.run({
            id,
            idempotency_key: message.idempotencyKey,
            channel_id: message.channelId,
            to_phone: message.to,
            body: message.body,
            accepted_at: acceptedAt,
            next_status: delivers ? "delivered" : null,
            next_status_at: delivers ? reportAt.toISOString() : null,
            status: "sent",
          });
          // A key seen before: the operator answers with the message it already accepted.
          if (changes === 0)
            return {
              status: "accepted",
              providerMessageId: byKey.get(message.idempotencyKey)?.id ?? id,
            };
          reports ||= delivers;
          return { status: "accepted", providerMessageId: id };
        }),
      );
      if (reports) await deps.scheduleReports(reportAt);
      return outcomes;
    },
  };
}
