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
});
