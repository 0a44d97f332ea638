import { checkE164 } from "../../contract/phones.js";
import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "./clock.js";
import { ContactWriter } from "./contact-store.js";
import { toContact } from "./contacts.js";
import { recordConsentEvent } from "./events.js";
import { invalidField } from "./service-error.js";
import type { Principal } from "./tokens.js";
import { loadWorkspaceFor, takesWrites } from "./workspace-access.js";

const optOutWords = new Set(["stop", "unsubscribe"]);
const optInWords = new Set(["start"]);

/**
 * What a reply means for consent: STOP or UNSUBSCRIBE opts out, START opts back in, in any case.
 * A withdrawal must never be missed, so STOP and UNSUBSCRIBE may have punctuation, emoji or
 * invisible marks around them ("Stop.", "STOP!!", "⛔️ stop"); a consent must be plain, so START
 * counts only alone ("Start?" is a question, not a yes). The word must stand alone either way
 * ("stop it" is neither).
 */
export function consentKeyword(text: string): "opted_out" | "opted_in" | null {
  const plain = text.normalize("NFKC").toLowerCase().trim();
  if (optInWords.has(plain)) return "opted_in";
  const word = plain.replace(/^[\s\p{P}\p{S}\p{M}\p{Cf}]+|[\s\p{P}\p{S}\p{M}\p{Cf}]+$/gu, "");
  return optOutWords.has(word) ? "opted_out" : null;
}

/**
 * Handles a message a contact sent to one of the workspace's numbers (through the messaging
 * operator): a consent keyword changes the contact's opt-in status and records when.
 */
export async function receiveInbound(
  deps: { db: Db; clock: Clock },
  principal: Principal,
  input: { workspace_id: string; from: string; text: string },
) {
  const workspace = await loadWorkspaceFor(deps.db, principal, input.workspace_id);
  await refuseRealNumbers(deps.db, workspace.id);
  const phone = checkE164(input.from);
  if (!phone.ok) throw invalidField("from", phone.message);
  return deps.db
    .transaction()
    .execute(async (trx) =>
      applyInboundMessage({ ...deps, db: trx }, workspace.id, phone.e164, input.text),
    );
}

/**
 * A workspace with a WhatsApp Cloud number takes no simulated reply: its contacts' replies come
 * from Meta (signed webhooks), and a simulated START would re-subscribe a real person who opted
 * out, recorded as their own reply. As the sandbox's template review refuses a template Meta
 * decides about.
 */
async function refuseRealNumbers(db: Db, workspaceId: string): Promise<void> {
  const real = await db
    .selectFrom("channels")
    .select("phone")
    .where("workspace_id", "=", workspaceId)
    .where("provider", "=", "whatsapp_cloud")
    .executeTakeFirst();
  if (real) {
    throw invalidField(
      "workspace_id",
      `workspace '${workspaceId}' has a WhatsApp Cloud number (${real.phone}): its contacts' replies come from Meta, and the sandbox does not simulate them`,
    );
  }
}

/**
 * The consent rules of an inbound message, for the sandbox and the Cloud API's webhooks alike:
 * STOP or UNSUBSCRIBE opts the sender out, START opts them back in; other text changes nothing.
 * Runs inside the caller's transaction.
 */
export async function applyInboundMessage(
  deps: { db: Db; clock: Clock },
  workspaceId: string,
  phone: string,
  text: string,
) {
  const keyword = consentKeyword(text);
  const writer = new ContactWriter(deps.db, workspaceId);
  const contact = await writer.byPhone(phone);
  if (!contact) return { contact_id: null, action: "none" as const, opt_in_status: null };
  if (!keyword || (keyword === "opted_in" && !(await startRecorded(deps.db, workspaceId)))) {
    return {
      contact_id: contact.id,
      action: "none" as const,
      opt_in_status: contact.opt_in_status,
    };
  }
  const result = writer.update(
    contact,
    {
      opt_in_status: keyword,
      ...(keyword === "opted_in" ? { opt_in_source: "whatsapp_reply" } : {}),
    },
    { now: isoSeconds(deps.clock.now()), source: "whatsapp_reply" },
  );
  if ("field" in result) throw invalidField(result.field, result.message);
  await writer.flush();
  await recordConsentEvent(
    deps.db,
    deps.clock,
    workspaceId,
    contact.opt_in_status,
    toContact(result),
  );
  return { contact_id: contact.id, action: keyword, opt_in_status: result.opt_in_status };
}

/**
 * Whether a START may be recorded: a suspended or archived workspace is read-only, but for a
 * withdrawal of consent, recorded all the same (as a PATCH to opted_out is).
 */
async function startRecorded(db: Db, workspaceId: string): Promise<boolean> {
  const workspace = await db
    .selectFrom("workspaces")
    .select("status")
    .where("id", "=", workspaceId)
    .executeTakeFirst();
  return workspace !== undefined && takesWrites(workspace.status);
}
