import { openDatabase } from "../../src/service/db/database.js";
import type { ContactTable } from "../../src/service/db/tables/contacts.js";
import { newId } from "../../src/service/domain/ids.js";

/** Calls the API of a benchmark service with its token; throws on an error answer. */
export function api(url: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await response.json()) as { data: Record<string, unknown> & { id: string } };
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
}

/** Valid German mobile numbers, none ending in a sandbox magic suffix. */
export function benchPhone(i: number): string {
  return `+49151${String(20_000_000 + i * 10).padStart(8, "0")}`;
}

/**
 * Writes `count` opted-in contacts straight into a workspace of `database` (a SQLite file or a
 * PostgreSQL URL), with the counters the contact writer keeps; not searchable (no search terms).
 */
export async function writeContacts(database: string, workspaceId: string, count: number) {
  const handle = await openDatabase(database);
  try {
    const now = new Date().toISOString().slice(0, 19).concat("Z");
    await handle.db.transaction().execute(async (trx) => {
      for (let start = 0; start < count; start += 1000) {
        const rows = [];
        for (let i = start; i < Math.min(count, start + 1000); i++) {
          rows.push({
            id: newId("ct"),
            workspace_id: workspaceId,
            phone: benchPhone(i),
            first_name: `P${i}`,
            last_name: null,
            email: null,
            tags: "[]",
            custom_fields: "{}",
            opt_in_status: "opted_in",
            opt_in_source: "bench",
            opted_in_at: now,
            opted_out_at: null,
            created_at: now,
            updated_at: now,
          });
        }
        // `seq` is the engine's to number (SQLite's rowid, PostgreSQL's identity).
        await trx
          .insertInto("contacts")
          .values(rows as unknown as ContactTable[])
          .execute();
      }
      await trx
        .insertInto("contact_counts")
        .values({ workspace_id: workspaceId, opt_in_status: "opted_in", count })
        .onConflict((oc) =>
          oc
            .columns(["workspace_id", "opt_in_status"])
            .doUpdateSet((eb) => ({ count: eb("contact_counts.count", "+", count) })),
        )
        .execute();
    });
  } finally {
    await handle.close();
  }
}

/**
 * A workspace ready to send: a channel, an approved template (the service runs with
 * --review-delay 0) and `contacts` opted-in contacts written straight into its database
 * (`database`: the service's SQLite file or PostgreSQL URL).
 */
export async function campaignWorld(
  url: string,
  token: string,
  database: string,
  contacts: number,
) {
  const call = api(url, token);
  const ws = await call("POST", "/api/v1/workspaces", {
    name: "Bench",
    contact_email: "bench@example.test",
    plan_id: "4",
    send_invitation: false,
  });
  const base = `/api/v1/workspaces/${ws.id}`;
  const channel = await call("POST", `${base}/channels`, {
    phone: "+4915112340000",
    name: "Bench",
  });
  const template = await call("POST", `${base}/templates`, {
    name: "bench_news",
    category: "marketing",
    language: "en",
    components: [
      { type: "BODY", text: "Hi {{1}}, news for you.", example: { body_text: [["Ada"]] } },
    ],
  });
  for (let i = 0; i < 100; i++) {
    if ((await call("GET", `${base}/templates/${template.id}`)).status === "approved") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await writeContacts(database, ws.id, contacts);
  const campaign = (extra: Record<string, unknown> = {}) =>
    call("POST", `${base}/campaigns`, {
      name: "Bench run",
      channel_id: channel.id,
      template_name: "bench_news",
      template_language: "en",
      audience: { all: true },
      variable_mapping: { "1": "first_name" },
      ...extra,
    });
  return { call, base, workspaceId: ws.id, channelId: channel.id, campaign };
}
