import { describe, expect, it } from "vitest";
import { reseller, serveDuringSuite } from "../helpers/serve.js";

describe("workspace lifecycle, usage and events from the command line", () => {
  const { env } = serveDuringSuite();

  it("archives, hides, restores and moves a workspace to a paid plan", async () => {
    const created = await reseller(
      [
        "workspaces",
        "create",
        "--name",
        "Trial Co",
        "--email",
        "t@co.test",
        "--plan",
        "1",
        "--no-invite",
        "--json",
      ],
      { env },
    );
    const id = JSON.parse(created.stdout).id as string;
    expect(JSON.parse(created.stdout).status).toBe("trial");

    const unconfirmed = await reseller(["workspaces", "archive", id], { env });
    expect(unconfirmed.exitCode).toBe(2);
    const archived = await reseller(["workspaces", "archive", id, "--yes", "--json"], { env });
    expect(archived.exitCode, archived.stderr).toBe(0);
    expect(JSON.parse(archived.stdout).status).toBe("archived");
    const listed = await reseller(["workspaces", "list", "--json"], { env });
    expect(JSON.parse(listed.stdout).map((w: { id: string }) => w.id)).not.toContain(id);
    const onlyArchived = await reseller(["workspaces", "list", "--status", "archived", "--quiet"], {
      env,
    });
    expect(onlyArchived.stdout.trim()).toBe(id);

    const restored = await reseller(["workspaces", "restore", id, "--json"], { env });
    expect(JSON.parse(restored.stdout).status).toBe("active");
    const paid = await reseller(["workspaces", "plan", id, "2", "--json"], { env });
    expect(paid.exitCode, paid.stderr).toBe(0);
    expect(JSON.parse(paid.stdout)).toMatchObject({ plan_id: "2", trial_ends_at: null });

    const events = await reseller(["events", "list", "--workspace", id, "--json"], { env });
    expect(JSON.parse(events.stdout).map((e: { type: string }) => e.type)).toEqual([
      "workspace.updated",
      "workspace.updated",
      "workspace.updated",
      "workspace.created",
    ]);
  });

  it("prints the month's usage as CSV with one row per workspace", async () => {
    const month = new Date().toISOString().slice(0, 7);
    const csv = await reseller(["usage", "--month", month, "--csv"], { env });
    expect(csv.exitCode, csv.stderr).toBe(0);
    const [header, ...rows] = csv.stdout.trim().split("\n");
    expect(header).toBe(
      "workspace_id,workspace_name,status,plan,sent,delivered,read,failed,marketing_sent,utility_sent,authentication_sent,contacts,active_templates,marketing_delivered,marketing_read,marketing_failed,utility_delivered,utility_read,utility_failed,authentication_delivered,authentication_read,authentication_failed",
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(csv.stderr).toContain(`${month}:`);
    const bad = await reseller(["usage", "--month", "2026-13"], { env });
    expect(bad.exitCode).toBe(2);
  });

  it("pages the usage report as any list does, every workspace by default", async () => {
    for (const name of ["Paged one", "Paged two"]) {
      await reseller(
        ["workspaces", "create", "--name", name, "--email", "p@acme.test", "--no-invite"],
        {
          env,
        },
      );
    }
    const month = new Date().toISOString().slice(0, 7);
    const every = await reseller(["usage", "--month", month, "--quiet"], { env });
    const ids = every.stdout.trim().split("\n");
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const first = await reseller(
      ["usage", "--month", month, "--page", "1", "--per-page", "1", "--quiet"],
      {
        env,
      },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(ids[0]);
    const second = await reseller(
      ["usage", "--month", month, "--page", "2", "--per-page", "1", "--json"],
      {
        env,
      },
    );
    expect(JSON.parse(second.stdout).map((w: { workspace_id: string }) => w.workspace_id)).toEqual([
      ids[1],
    ]);
    const all = await reseller(["usage", "--month", month, "--all", "--quiet"], { env });
    expect(all.stdout.trim().split("\n")).toEqual(ids);
  });
});
