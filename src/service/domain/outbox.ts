import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";

/** One email as the service composes it. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** Where emails go beyond the outbox (SMTP in `serve`); rejects when the server refuses one. */
export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** An email written to the outbox, with what the writer needs to finish delivering it. */
export interface OutboxEntry {
  id: string;
  mail: OutgoingMail;
  /** Set when the outbox itself is the destination (no mailer): the email counts as sent. */
  sentAt: string | null;
}

/**
 * Writes an email to the outbox, which the operator can always read; call it inside the
 * transaction of the action that causes the email. Without a mailer the outbox is the
 * destination, so the email counts as sent now; with one, `sendFromOutbox` sends it after
 * the transaction has committed.
 */
export async function writeToOutbox(
  db: Db,
  clock: Clock,
  mail: OutgoingMail & { resellerId: string; workspaceId: string | null; kind: string },
  hasMailer: boolean,
): Promise<OutboxEntry> {
  const id = newId("eml");
  const now = isoSeconds(clock.now());
  const sentAt = hasMailer ? null : now;
  await db
    .insertInto("outbox")
    .values({
      id,
      reseller_id: mail.resellerId,
      workspace_id: mail.workspaceId,
      kind: mail.kind,
      recipient: mail.to,
      subject: mail.subject,
      body: mail.text,
      delivery: hasMailer ? "pending" : "outbox",
      error: null,
      created_at: now,
      sent_at: sentAt,
    })
    .execute();
  return { id, mail: { to: mail.to, subject: mail.subject, text: mail.text }, sentAt };
}

/**
 * Sends an outbox email through the mailer and records the outcome on its row. A failed send
 * is recorded and answered as null, never thrown: an email must not undo the action behind it.
 */
export async function sendFromOutbox(
  db: Db,
  clock: Clock,
  mailer: Mailer,
  entry: OutboxEntry,
): Promise<string | null> {
  try {
    await mailer.send(entry.mail);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await db
      .updateTable("outbox")
      .set({ delivery: "failed", error: reason.slice(0, 1000) })
      .where("id", "=", entry.id)
      .execute();
    return null;
  }
  const sentAt = isoSeconds(clock.now());
  await db
    .updateTable("outbox")
    .set({ delivery: "sent", sent_at: sentAt })
    .where("id", "=", entry.id)
    .execute();
  return sentAt;
}
