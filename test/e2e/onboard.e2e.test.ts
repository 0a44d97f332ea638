import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { reseller, serveDuringSuite } from "../helpers/serve.js";

describe("reseller workspaces onboard against a real service", () => {
  const { env, service } = serveDuringSuite();

  it("onboards a client from flags: the workspace on its plan, and a pricing-page token that reads plans", async () => {
    const run = await reseller(
      [
        "workspaces",
        "onboard",
        "--name",
        "Acme Bakery",
        "--email",
        "owner@acme.test",
        "--plan",
        "starter-monthly",
        "--pricing-token",
        "--json",
      ],
      { env },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const { workspace, pricing_token: token } = JSON.parse(run.stdout);
    expect(workspace).toMatchObject({
      name: "Acme Bakery",
      contact_email: "owner@acme.test",
      plan: { slug: "starter-monthly" },
      invitation: { sent: true },
    });
    expect(token).toMatchObject({
      kind: "workspace",
      workspace_id: workspace.id,
      scopes: ["plans:read"],
    });

    const plans = await reseller(["plans", "list", "-q"], {
      env: { RESELLER_BASE_URL: service().url, RESELLER_TOKEN: token.token },
    });
    expect(plans.exitCode).toBe(0);
    const denied = await reseller(["workspaces", "list"], {
      env: { RESELLER_BASE_URL: service().url, RESELLER_TOKEN: token.token },
    });
    expect(denied.exitCode).toBe(3);
  });

  it("imports a CSV file of contacts into the new workspace with --import", async () => {
    const file = join(tempConfigDir(), "customers.csv");
    writeFileSync(file, "phone,first_name,tags\n+4915112345678,Anna,vip\n+4915112345679,Ben,\n");
    const run = await reseller(
      [
        "workspaces",
        "onboard",
        "--name",
        "Beta",
        "--email",
        "b@beta.test",
        "--plan",
        "2",
        "--import",
        file,
      ],
      { env },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /Import imp_\w+ completed: 2 created, 0 updated, 0 skipped, 0 errors/,
    );
    const id = /^id\t(ws_\w+)$/m.exec(run.stdout)?.[1] ?? "";
    const contacts = await reseller(["contacts", "list", "-w", id, "--json"], { env });
    expect(
      JSON.parse(contacts.stdout)
        .map((c: { phone: string }) => c.phone)
        .sort(),
    ).toEqual(["+4915112345678", "+4915112345679"]);
  });

  it("says which flag is missing when run without a terminal", async () => {
    const run = await reseller(
      ["workspaces", "onboard", "--name", "Acme", "--email", "o@acme.test"],
      {
        env,
      },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("Missing --plan.");
  });
});
