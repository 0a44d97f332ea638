import { type ExpressionBuilder, sql } from "kysely";
import type { Audience } from "../../contract/campaigns.js";
import { tagNamed } from "../db/contact-rows/contact-pages.js";
import type { Db } from "../db/database.js";
import type { Database } from "../db/schema.js";
import { type ContactFields, contactFieldsOf } from "./campaign-rendering.js";

/**
 * The contacts of `workspaceId` an audience option matches, as a filter on `contacts`. Tags
 * match whatever their case, as the contact list's tag filter does.
 */
function audienceFilter(workspaceId: string, audience: Audience) {
  return (eb: ExpressionBuilder<Database, "contacts">) => {
    const inWorkspace = eb("contacts.workspace_id", "=", workspaceId);
    if ("contact_ids" in audience)
      return eb.and([inWorkspace, eb("contacts.id", "in", audience.contact_ids)]);
    if ("tags" in audience) {
      return eb.and([
        inWorkspace,
        eb(
          "contacts.seq",
          "in",
          eb
            .selectFrom("contact_tag_links")
            .innerJoin("contact_tags", "contact_tags.seq", "contact_tag_links.tag_seq")
            .select("contact_tag_links.contact_seq")
            .where("contact_tags.workspace_id", "=", workspaceId)
            .where((tag) => tag.or(audience.tags.map((name) => tagNamed(name.trim())))),
        ),
      ]);
    }
    return inWorkspace;
  };
}

/** How an audience splits by consent: only `opted_in` contacts are ever messaged. */
export interface AudienceCounts {
  audience_total: number;
  with_consent: number;
  skipped_no_consent: number;
  skipped_opted_out: number;
}

/** Counts an audience by opt-in status without touching anything. */
export async function countAudience(
  db: Db,
  workspaceId: string,
  audience: Audience,
): Promise<AudienceCounts> {
  const rows = await db
    .selectFrom("contacts")
    .select(["opt_in_status", sql<number>`count(*)`.as("count")])
    .where(audienceFilter(workspaceId, audience))
    .groupBy("opt_in_status")
    .execute();
  const by = (status: string) => Number(rows.find((r) => r.opt_in_status === status)?.count ?? 0);
  const counts = {
    with_consent: by("opted_in"),
    skipped_no_consent: by("not_set"),
    skipped_opted_out: by("opted_out"),
  };
  return {
    audience_total: counts.with_consent + counts.skipped_no_consent + counts.skipped_opted_out,
    ...counts,
  };
}

/**
 * How many contacts of the audience with consent `fails` holds for (a message that cannot be
 * filled), read a page at a time so a large audience never holds the event loop for long.
 */
export async function countConsentingWhere(
  db: Db,
  workspaceId: string,
  audience: Audience,
  fails: (contact: ContactFields) => boolean,
  pageSize = 2000,
): Promise<number> {
  let failing = 0;
  let after = -1;
  for (;;) {
    const rows = await db
      .selectFrom("contacts")
      .select(["seq", "phone", "first_name", "last_name", "email", "custom_fields"])
      .where(audienceFilter(workspaceId, audience))
      .where("opt_in_status", "=", "opted_in")
      .where("seq", ">", after)
      .orderBy("seq")
      .limit(pageSize)
      .execute();
    for (const row of rows) if (fails(contactFieldsOf(row))) failing++;
    const last = rows.at(-1);
    if (last === undefined || rows.length < pageSize) return failing;
    after = last.seq;
  }
}

/** Contact ids of `ids` that are not contacts of the workspace. */
export async function unknownContactIds(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<string[]> {
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("contacts")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of rows) known.add(row.id);
  }
  return ids.filter((id) => !known.has(id));
}

/**
 * Writes one recipient row per consenting contact of the audience (the snapshot) in one
 * INSERT … SELECT; the primary key (campaign, contact) makes a second row for anyone impossible.
 */
export async function snapshotRecipients(
  db: Db,
  campaignId: string,
  workspaceId: string,
  audience: Audience,
  now: string,
): Promise<void> {
  await db
    .insertInto("campaign_recipients")
    .columns(["campaign_id", "contact_id", "phone", "state", "updated_at"])
    .expression(
      db
        .selectFrom("contacts")
        .select([
          sql<string>`${campaignId}`.as("campaign_id"),
          "contacts.id",
          "contacts.phone",
          sql<string>`${"queued"}`.as("state"),
          sql<string>`${now}`.as("updated_at"),
        ])
        .where(audienceFilter(workspaceId, audience))
        .where("contacts.opt_in_status", "=", "opted_in"),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}
/**
 * Whether the run job has taken the campaign's audience (its recipients, or its skipped ones):
 * read in the cancel's transaction, which a racing start either committed before or waits for
 * (and then finds the campaign cancelled).
 */
export async function audienceTaken(trx: Db, campaignId: string): Promise<boolean> {
  const campaign = await trx
    .selectFrom("campaigns")
    .select("audience_total")
    .where("id", "=", campaignId)
    .executeTakeFirstOrThrow();
  if (campaign.audience_total > 0) return true;
  const recipient = await trx
    .selectFrom("campaign_recipients")
    .select("contact_id")
    .where("campaign_id", "=", campaignId)
    .limit(1)
    .executeTakeFirst();
  return recipient !== undefined;
}
