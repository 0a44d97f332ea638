import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../../src/service/domain/ids.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** Reads a text/event-stream until `until` settles, then answers the ids of its events. */
async function streamedIds(url: string, token: string, until: Promise<unknown>) {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  let text = "";
  void until.then(() => abort.abort());
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) text += decoder.decode(chunk, { stream: true });
  } catch {
    // Aborted when the test is done watching.
  }
  return text
    .split("\n\n")
    .filter((block) => block.includes("data: "))
    .map((block) => /^id: (\S+)$/m.exec(block)?.[1]);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the live event stream on PostgreSQL", () => {
  let t: TestApp;
  let url: string;
  beforeEach(async () => {
    t = await startTestApp();
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = t.app.server.address() as { port: number };
    url = `http://127.0.0.1:${port}/api/v1/events/stream`;
  });
  afterEach(() => t.close());

  it("sends an event whose transaction commits after a later event was sent", async () => {
    const { reseller_id: resellerId } = await t.database.db
      .selectFrom("workspaces")
      .select("reseller_id")
      .where("id", "=", await t.createWorkspace({ name: "Before" }))
      .executeTakeFirstOrThrow();
    let finish = () => {};
    const watched = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const ids = streamedIds(url, t.token, watched);
    await pause(300);
    // A transaction writes its event (the earlier id) and is slow to commit.
    const early = newId("evt");
    let commit = () => {};
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const slow = t.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("events")
        .values({
          id: early,
          reseller_id: resellerId,
          workspace_id: null,
          type: "workspace.updated",
          data: "{}",
          created_at: new Date().toISOString().slice(0, 19).concat("Z"),
        })
        .execute();
      await committed;
    });
    // Meanwhile a later event commits, and the stream sends it.
    await t.createWorkspace({ name: "Later" });
    await pause(1200);
    commit();
    await slow;
    await pause(1200);
    finish();
    const sent = await ids;
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(early);
    expect(sent[0] !== undefined && sent[0] > early).toBe(true);
  });
});
