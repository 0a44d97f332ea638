import type { QueryExecutorProvider } from "kysely";
import { sqliteHandleOf } from "../engine.js";
import type { WriteRecipientOutcomes } from "./recipient-outcomes.js";

/**
 * The outcome write on SQLite: a prepared statement per recipient, on the one connection the
 * Kysely transaction runs on, which costs no round trip. One statement over a `VALUES` list, as
 * on PostgreSQL, is quadratic here: SQLite's planner walks the campaign's queued rows and scans
 * the list for each (a 100,000-recipient campaign stalled).
 */
export function sqliteRecipientOutcomes(trx: QueryExecutorProvider): WriteRecipientOutcomes {
  const sqlite = sqliteHandleOf(trx);
  return async (campaignId, rows, now) => {
    const update = sqlite.prepare(
      `UPDATE campaign_recipients SET state = ?, provider_message_id = ?, failure_reason = ?,
         outcome_at = ?, updated_at = ?
       WHERE campaign_id = ? AND contact_id = ? AND state IN ('queued', 'sending')`,
    );
    const changed = new Set<string>();
    for (const row of rows) {
      const args = [
        row.state,
        row.providerMessageId,
        row.failureReason,
        row.outcomeAt,
        now,
        campaignId,
      ];
      if (update.run(...args, row.contactId).changes === 1) changed.add(row.contactId);
    }
    return changed;
  };
}
