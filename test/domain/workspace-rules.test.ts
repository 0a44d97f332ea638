import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/service/db/database.js";
import { paginate } from "../../src/service/db/keyset-paging.js";
import { enforcePlanLimit, planAllowance } from "../../src/service/domain/plan-limits.js";
import { loadCatalogue } from "../../src/service/domain/plans.js";
import { createReseller } from "../../src/service/domain/resellers.js";
import { ServiceError } from "../../src/service/domain/service-error.js";
import { authenticate, type Principal } from "../../src/service/domain/tokens.js";
import {
  loadActiveWorkspaceFor,
  loadWorkspaceFor,
  requireActiveWorkspace,
} from "../../src/service/domain/workspace-access.js";
import { createWorkspace, updateWorkspace } from "../../src/service/domain/workspaces.js";
import { TestClock } from "../helpers/test-app.js";

/** The ServiceError a promise rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${error}`);
  return error;
}

describe("workspace rules for later features", () => {
  const clock = new TestClock();
  let db: Db;
  let close: () => Promise<void>;
  let owner: Principal;
  let stranger: Principal;
  let planIds: Record<string, number>;

  async function principal(secret: string): Promise<Principal> {
    const found = await authenticate(db, clock, secret);
    if (!found) throw new Error("token did not authenticate");
    return found;
  }

  async function workspace(planSlug?: string) {
    const services = { db, clock, publicUrl: () => "https://x.test", mailer: null };
    return createWorkspace(services, owner, {
      name: "Acme",
      contact_email: "owner@acme.test",
      plan_id: planSlug === undefined ? null : String(planIds[planSlug]),
      send_invitation: false,
    });
  }

  beforeAll(async () => {
    const handle = await openDatabase(":memory:");
    db = handle.db;
    close = handle.close;
    const feature = (key: string, type: "limit" | "quota", value: number) => ({
      key,
      name: key,
      type,
      value,
    });
    await loadCatalogue(db, clock, {
      currency: { code: "EUR", name: "Euro", symbol: "€" },
      plans: [
        {
          name: "Tiny",
          slug: "tiny",
          description: null,
          is_public: true,
          is_free: false,
          trial_days: null,
          price: 1,
          billing_period: "monthly",
          features: [feature("contacts", "limit", 0), feature("messages_per_month", "quota", 10)],
        },
        {
          name: "Unlimited",
          slug: "unlimited",
          description: null,
          is_public: true,
          is_free: false,
          trial_days: null,
          price: 99,
          billing_period: "monthly",
          features: [feature("contacts", "limit", -1)],
        },
      ],
    });
    const plans = await db.selectFrom("plans").select(["id", "slug"]).execute();
    planIds = Object.fromEntries(plans.map((p) => [p.slug, p.id]));
    owner = await principal((await createReseller(db, clock, { name: "One" })).token.secret);
    stranger = await principal((await createReseller(db, clock, { name: "Two" })).token.secret);
  });
  afterAll(() => close());

  describe("loading a workspace for a caller", () => {
    it("finds the caller's own workspace", async () => {
      const ws = await workspace();
      expect((await loadWorkspaceFor(db, owner, ws.id)).name).toBe("Acme");
    });

    it("answers 404 for another reseller's workspace, as for a missing one", async () => {
      const ws = await workspace();
      const foreign = await failure(loadWorkspaceFor(db, stranger, ws.id));
      const missing = await failure(loadWorkspaceFor(db, stranger, "ws_missing"));
      expect([foreign.status, foreign.code]).toEqual([404, "not_found"]);
      expect(missing.code).toBe(foreign.code);
    });

    it("answers 404 to a workspace token for any workspace but its own", async () => {
      const mine = await workspace();
      const other = await workspace();
      const wsToken: Principal = { ...owner, workspaceId: mine.id };
      expect((await loadWorkspaceFor(db, wsToken, mine.id)).id).toBe(mine.id);
      expect((await failure(loadWorkspaceFor(db, wsToken, other.id))).status).toBe(404);
    });
  });

  describe("writes need an active or trial workspace", () => {
    it("lets active and trial workspaces take writes", async () => {
      const ws = await workspace();
      expect((await loadActiveWorkspaceFor(db, owner, ws.id)).status).toBe("active");
      const row = await loadWorkspaceFor(db, owner, ws.id);
      expect(requireActiveWorkspace({ ...row, status: "trial" }).id).toBe(ws.id);
    });

    it("refuses writes to a suspended or archived workspace with 409 workspace_not_active", async () => {
      const ws = await workspace();
      await updateWorkspace(db, clock, owner, ws.id, { status: "suspended" });
      const error = await failure(loadActiveWorkspaceFor(db, owner, ws.id));
      expect([error.status, error.code]).toEqual([409, "workspace_not_active"]);
      const row = await loadWorkspaceFor(db, owner, ws.id);
      expect(() => requireActiveWorkspace({ ...row, status: "archived" })).toThrow(ServiceError);
    });
  });

  describe("plan limits", () => {
    it("refuses to go past a limit with 409 plan_limit_exceeded naming feature, limit and usage", async () => {
      const ws = await workspace("tiny");
      const error = await failure(enforcePlanLimit(db, clock, planned(ws), "contacts"));
      expect([error.status, error.code]).toEqual([409, "plan_limit_exceeded"]);
      expect(error.details).toEqual([
        { field: "contacts", message: "limit 0, used 0", limit: 0, used: 0 },
      ]);
    });

    it("allows what fits in a quota and refuses what does not", async () => {
      const ws = await workspace("tiny");
      await enforcePlanLimit(db, clock, planned(ws), "messages_per_month", 10);
      const error = await failure(
        enforcePlanLimit(db, clock, planned(ws), "messages_per_month", 11),
      );
      expect(error.details?.[0]).toMatchObject({ field: "messages_per_month", limit: 10 });
    });

    it("treats -1 as unlimited, and a plan without the feature or no plan as no ceiling", async () => {
      await enforcePlanLimit(db, clock, planned(await workspace("unlimited")), "contacts", 1e9);
      await enforcePlanLimit(db, clock, planned(await workspace("tiny")), "templates", 1e9);
      await enforcePlanLimit(db, clock, planned(await workspace()), "contacts", 1e9);
      expect(await planAllowance(db, clock, planned(await workspace()), "contacts")).toBeNull();
    });

    /** The workspace fields plan-limit checks read, from the API record. */
    function planned(ws: { id: string; plan_id: string | null }) {
      return { id: ws.id, plan_id: ws.plan_id === null ? null : Number(ws.plan_id) };
    }
  });

  it("pages by key, not by offset, when given a cursor", async () => {
    const statements: string[] = [];
    const sqlite = new BetterSqlite3(":memory:");
    sqlite.exec("create table items (id text primary key)");
    const insert = sqlite.prepare("insert into items (id) values (?)");
    // Shaped as every id is (a prefix, `_`, 26 characters): a cursor holding anything else is refused.
    for (let i = 0; i < 30; i++) insert.run(`it_${String(i).padStart(26, "0")}`);
    const logged = new Kysely<{ items: { id: string } }>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        statements.push(event.query.sql);
      },
    });
    const first = await paginate(logged.selectFrom("items").selectAll(), "items.id", {
      page: 1,
      per_page: 10,
    });
    statements.length = 0;
    const second = await paginate(logged.selectFrom("items").selectAll(), "items.id", {
      page: 1,
      per_page: 10,
      cursor: first.pagination.next_cursor ?? "",
    });
    expect(second.rows.map((r) => r.id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `it_${String(19 - i).padStart(26, "0")}`),
    );
    const rowsQuery = statements.find((s) => !s.includes("count(*)")) ?? "";
    expect(rowsQuery).toContain('"items"."id" < ?');
    expect(rowsQuery).not.toMatch(/offset/i);
    await logged.destroy();
  });
});
