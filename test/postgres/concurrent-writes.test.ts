import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
});
