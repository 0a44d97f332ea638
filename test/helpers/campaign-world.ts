import BetterSqlite3 from "better-sqlite3";
import { ContactWriter } from "../../src/service/domain/contact-store.js";

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
 * A workspace ready to send: a channel, an approved template (the service runs with
 * --review-delay 0) and `contacts` opted-in contacts written straight into its database.
 */
export async function campaignWorld(url: string, token: string, dbFile: string, contacts: number) {
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
  const sqlite = new BetterSqlite3(dbFile);
  sqlite.pragma("busy_timeout = 10000");
  const writer = new ContactWriter(sqlite, ws.id);
  const now = new Date().toISOString().slice(0, 19).concat("Z");
  sqlite.transaction(() => {
    for (let i = 0; i < contacts; i++) {
      writer.create(
        benchPhone(i),
        { first_name: `P${i}`, opt_in_status: "opted_in" },
        { now, source: "bench" },
      );
    }
  })();
  sqlite.close();
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
  return { call, base, campaign };
}
