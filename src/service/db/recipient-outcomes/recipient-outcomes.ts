import type { QueryExecutorProvider } from "kysely";
import { engineOf } from "../engine.js";
import { postgresRecipientOutcomes } from "./postgres-recipient-outcomes.js";
import { sqliteRecipientOutcomes } from "./sqlite-recipient-outcomes.js";

/**
 * The campaign engine's batch write of its recipients' outcomes (domain/campaign-engine.ts), one
 * implementation per engine: which outcome a recipient gets, and what it counts for, is the
 * engine's; these only write the rows, a batch per transaction.
 */

/** One recipient's outcome as written to its row. */
export interface RecipientOutcomeRow {
  contactId: string;
  state: string;
  providerMessageId: string | null;
  failureReason: string | null;
  /** When it counts as sent or failed; null while the send's answer is lost. */
  outcomeAt: string | null;
}

/** Writes a batch of outcomes; answers the contacts whose row it changed. */
export type WriteRecipientOutcomes = (
  campaignId: string,
  rows: readonly RecipientOutcomeRow[],
  now: string,
) => Promise<Set<string>>;

/**
 * Writes a batch's outcomes to the campaign's recipients still `queued` or `sending`, and
 * answers the contacts whose row it changed: a recipient resolved meanwhile (by a status webhook,
 * or another instance after a takeover) keeps its state and is left out of the answer.
 */
export async function writeRecipientOutcomes(
  trx: QueryExecutorProvider,
  campaignId: string,
  rows: readonly RecipientOutcomeRow[],
  now: string,
): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const write =
    engineOf(trx) === "sqlite" ? sqliteRecipientOutcomes(trx) : postgresRecipientOutcomes(trx);
  return write(campaignId, rows, now);
}
