import { rmSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/campaign-world.js";
import { startServe } from "../helpers/serve.js";
import { until } from "./crash-support.js";

interface TemplateRecord {
  id: string;
  status: string;
  submitted_at: string | null;
  reviewed_at: string | null;
}

/**
 * A template submitted to a `reseller serve --review-delay 2` that is killed with SIGKILL
 * before the review: the restarted service reviews it exactly once (one review job, done; one
 * decision), at the earliest when its delay has passed.
 */
describe("crash safety of template review", () => {
  it("reviews a template submitted before a SIGKILL exactly once after the restart", async () => {
    const args = ["--review-delay", "2"];
    const first = await startServe({ args });
    const call = api(first.url, first.token);
    const ws = await call("POST", "/api/v1/workspaces", {
      name: "Review crash",
      contact_email: "review@example.test",
      send_invitation: false,
    });
    const base = `/api/v1/workspaces/${ws.id}`;
    const created = (await call("POST", `${base}/templates`, {
      name: "crash_review",
      category: "marketing",
      language: "en",
      components: [
        { type: "BODY", text: "Hi {{1}}, fresh news.", example: { body_text: [["Ada"]] } },
      ],
    })) as unknown as TemplateRecord;
    expect(created.status).toBe("pending");
    first.process.kill("SIGKILL");
    await first.process;

    // Killed before the review: nothing decided yet.
    const read = (sql: string) => {
      const db = new BetterSqlite3(first.dbFile, { readonly: true });
      try {
        return db.prepare(sql).all(created.id);
      } finally {
        db.close();
      }
    };
    expect(read("SELECT status, reviewed_at FROM templates WHERE id = ?")).toEqual([
      { status: "pending", reviewed_at: null },
    ]);

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    try {
      const again = api(second.url, second.token);
      const reviewed = await until(
        "the review after the restart",
        async () => {
          const t = (await again(
            "GET",
            `${base}/templates/${created.id}`,
          )) as unknown as TemplateRecord;
          return t.status === "pending" ? undefined : t;
        },
        { timeoutMs: 30_000, everyMs: 100 },
      );
      expect(reviewed.status).toBe("approved");
      const waited =
        Date.parse(reviewed.reviewed_at ?? "") - Date.parse(created.submitted_at ?? "");
      expect(waited).toBeGreaterThanOrEqual(2000);

      // One review job, finished; its one decision is what the record shows. A later look (the
      // job runner polls again meanwhile) finds the same decision, not a second one.
      const jobs = read(
        "SELECT state FROM jobs WHERE kind = 'template_review' AND payload LIKE '%' || ? || '%'",
      );
      expect(jobs).toEqual([{ state: "done" }]);
      const later = (await again(
        "GET",
        `${base}/templates/${created.id}`,
      )) as unknown as TemplateRecord;
      expect(later).toMatchObject({ status: "approved", reviewed_at: reviewed.reviewed_at });
    } finally {
      await second.stop();
      rmSync(second.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
