import { type QueryExecutorProvider, sql } from "kysely";
import type { RecipientOutcomeRow, WriteRecipientOutcomes } from "./recipient-outcomes.js";

/** Outcomes as rows of a `VALUES` list: contact, state, provider message id, reason, time. */
function outcomeValues(rows: readonly RecipientOutcomeRow[]) {
  return sql.join(
    rows.map(
      (r) =>
        sql`(${r.contactId}, ${r.state}, ${r.providerMessageId}, ${r.failureReason}, ${r.outcomeAt})`,
    ),
  );
}

/**
 * The outcome write on PostgreSQL: one statement per batch, so a batch costs one round trip
 * (`column1…` name a `VALUES` list's columns).
 */
export function postgresRecipientOutcomes(trx: QueryExecutorProvider): WriteRecipientOutcomes {
  return async (campaignId, rows, now) => {
    const { rows: changed } = await sql<{ contact_id: string }>`
      UPDATE campaign_recipients
      SET state = v.column2, provider_message_id = v.column3, failure_reason = v.column4,
        outcome_at = v.column5, updated_at = ${now}
      FROM (VALUES ${outcomeValues(rows)}) AS v
      WHERE campaign_recipients.campaign_id = ${campaignId}
        AND campaign_recipients.contact_id = v.column1
        AND campaign_recipients.state IN ('queued', 'sending')
      RETURNING campaign_recipients.contact_id`.execute(trx);
    return new Set(changed.map((r) => r.contact_id));
  };
}
