import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contactsLimitCatalogue } from "../helpers/plans-file.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** A draft template of that name (drafts are not reviewed, so nothing else runs). */
function draft(name: string) {
  return {
    name,
    category: "utility",
    language: "en",
    draft: true,
    components: [{ type: "BODY", text: "Your order has shipped." }],
  };
}

describe("concurrent writes on PostgreSQL (several connections, several instances)", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("creates one of two simultaneous templates of the same name and refuses the other with 409 template_exists", async () => {
    const workspace = await t.createWorkspace();
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() =>
        t.request("POST", `/api/v1/workspaces/${workspace}/templates`, { body: draft("same") }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.statusCode === 409)) {
      expect(refused.json().error_code).toBe("template_exists");
    }
  });

  it("holds the plan's templates limit when creates race for the last units", async () => {
    // The trial plan allows 5 templates.
    const workspace = await t.createWorkspace({ plan_id: "1" });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.request("POST", `/api/v1/workspaces/${workspace}/templates`, { body: draft(`t_${i}`) }),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201).length;
    const refused = answers.filter((a) => a.statusCode === 409);
    expect(created).toBe(5);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.json().error_code).toBe("plan_limit_exceeded");
    const stored = await t.database.db
      .selectFrom("templates")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", workspace)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(5);
  });

  const get = async (id: string) =>
    (await t.request("GET", `/api/v1/workspaces/${id}`)).json().data;
  const patch = (id: string, body: unknown) =>
    t.request("PATCH", `/api/v1/workspaces/${id}`, { body });

  // Two requests at once reach the database on two connections and may both read the
  // workspace before either writes; each change must follow from the workspace as it is.
  const rounds = 6;

  it("keeps a suspension that meets a plan upgrade: the workspace ends suspended either way", async () => {
    for (let round = 0; round < rounds; round++) {
      const id = await t.createWorkspace({ plan_id: "1" });
      const answers = await Promise.all([
        patch(id, { status: "suspended" }),
        patch(id, { plan_id: "2" }),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
      expect(await get(id)).toMatchObject({ status: "suspended", plan_id: "2" });
    }
  });

  it("keeps an archive that meets a plan upgrade: archived either way, the upgrade refused after it", async () => {
    for (let round = 0; round < rounds; round++) {
      const id = await t.createWorkspace({ plan_id: "1" });
      const [archived, upgraded] = await Promise.all([
        t.request("POST", `/api/v1/workspaces/${id}/archive`),
        patch(id, { plan_id: "2" }),
      ]);
      expect(archived.statusCode).toBe(200);
      const ws = await get(id);
      expect(ws.status).toBe("archived");
      // Either the upgrade came first (and holds), or it met the archive and was refused.
      if (upgraded.statusCode === 200) expect(ws.plan_id).toBe("2");
      else expect([upgraded.statusCode, ws.plan_id]).toEqual([409, "1"]);
    }
  });

  it("tells a workspace change sent many times at once once: one workspace.updated event", async () => {
    const id = await t.createWorkspace({ plan_id: "2" });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => patch(id, { status: "suspended" })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const events = (await t.request("GET", `/api/v1/events?workspace_id=${id}`)).json().data as {
      type: string;
    }[];
    expect(events.filter((e) => e.type === "workspace.updated")).toHaveLength(1);
  });

  it("keeps consent counts exact while contacts move in opposite directions at the same moment", async () => {
    const workspace = await t.createWorkspace();
    const base = `/api/v1/workspaces/${workspace}/contacts`;
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.request("POST", base, {
        body: {
          phone: `+491511234${String(5600 + i)}`,
          opt_in_status: i % 2 ? "opted_in" : "not_set",
        },
      });
      ids.push(res.json().data.id);
    }
    const statuses: number[] = [];
    for (let round = 0; round < 6; round++) {
      const answers = await Promise.all(
        ids.map((id, i) =>
          t.request("PATCH", `${base}/${id}`, {
            body:
              (i + round) % 2
                ? { opt_in_status: "opted_out" }
                : { opt_in_status: "opted_in", opt_in_source: "form:test" },
          }),
        ),
      );
      statuses.push(...answers.map((a) => a.statusCode));
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    const counted = await t.database.db
      .selectFrom("contact_counts")
      .select(["opt_in_status", "count"])
      .where("workspace_id", "=", workspace)
      .execute();
    const actual = await t.database.db
      .selectFrom("contacts")
      .select(["opt_in_status", (eb) => eb.fn.countAll<number>().as("n")])
      .where("workspace_id", "=", workspace)
      .groupBy("opt_in_status")
      .execute();
    for (const { opt_in_status, n } of actual) {
      expect(counted.find((c) => c.opt_in_status === opt_in_status)?.count).toBe(Number(n));
    }
  });

  it("updates, not refuses, a phone sent many times at once when the contacts limit has one place left", async () => {
    await t.close();
    t = await startTestApp({ plansFile: contactsLimitCatalogue(2) });
    const workspace = await t.createWorkspace({ plan_id: "1" });
    const upsert = (body: Record<string, unknown>) =>
      t.request("POST", `/api/v1/workspaces/${workspace}/contacts`, { body });
    expect((await upsert({ phone: "+4915112345601" })).statusCode).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upsert({ phone: "+4915112345602", first_name: `Ben ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses, answers.map((a) => a.body).join("\n")).toEqual([
      ...Array.from({ length: 11 }, () => 200),
      201,
    ]);
  });

  it("changes the tags of contacts sharing them many at a time without a deadlock (never a 503)", async () => {
    const workspace = await t.createWorkspace();
    const names = ["a", "b", "c", "d", "e"];
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await t.request("POST", `/api/v1/workspaces/${workspace}/contacts`, {
        body: { phone: `+491511239${String(i).padStart(4, "0")}`, tags: names },
      });
      ids.push(created.json().data.id);
    }
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          t.request("PATCH", `/api/v1/workspaces/${workspace}/contacts/${ids[i % 10]}`, {
            body: { tags: names.filter((_, n) => (i + n + round) % 3 !== 0) },
          }),
        ),
      );
      statuses.push(...answers.map((a) => a.statusCode));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("says a template submitted or deleted meanwhile is pending (409) or gone (404), never 'draft, not a draft'", async () => {
    const workspace = await t.createWorkspace();
    for (let round = 0; round < 5; round++) {
      const created = await t.request("POST", `/api/v1/workspaces/${workspace}/templates`, {
        body: draft(`race_${round}`),
      });
      const path = `/api/v1/workspaces/${workspace}/templates/${created.json().data.id}`;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0 ? t.request("POST", `${path}/submit`) : t.request("DELETE", path),
        ),
      );
      for (const answer of answers) {
        expect([200, 404, 409]).toContain(answer.statusCode);
        expect(answer.body).not.toContain("is draft, not a draft");
      }
    }
  });
});
