import type { Db } from "../db/database.js";

/**
 * The month's message meter (`message_counts`): messages sent per workspace and calendar month,
 * what the `messages_per_month` plan limit compares. Added to in the transaction that records a
 * send, by the engine or, for a send whose answer was lost, by the status report confirming it.
 */

/** The calendar month (UTC) of an instant as `YYYY-MM`: the meter's key, and a usage report's. */
export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Adds `sent` messages to a workspace's meter for `month`, in the caller's transaction. */
export async function meterSent(
  trx: Db,
  workspaceId: string,
  month: string,
  sent: number,
): Promise<void> {
  await trx
    .insertInto("message_counts")
    .values({ workspace_id: workspaceId, month, sent })
    .onConflict((oc) =>
      oc
        .columns(["workspace_id", "month"])
        .doUpdateSet((eb) => ({ sent: eb("message_counts.sent", "+", sent) })),
    )
    .execute();
}

/** Messages a workspace's meter counts for `month`. */
export async function meteredSent(db: Db, workspaceId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom("message_counts")
    .select("sent")
    .where("workspace_id", "=", workspaceId)
    .where("month", "=", month)
    .executeTakeFirst();
  return row?.sent ?? 0;
}
