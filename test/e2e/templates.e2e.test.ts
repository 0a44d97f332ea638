import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempConfigDir } from "../helpers/cli.js";
import { reseller, type ServedService, serviceEnv, startServe } from "../helpers/serve.js";

const orderUpdate = {
  name: "order_update",
  category: "utility",
  language: "en_US",
  components: [
    {
      type: "BODY",
      text: "Hi {{1}}, your order {{2}} has shipped.",
      example: { body_text: [["Ada", "A-1042"]] },
    },
    {
      type: "BUTTONS",
      buttons: [
        {
          type: "URL",
          text: "Track order",
          url: "https://shop.example/o/{{1}}",
          example: ["A-1042"],
        },
      ],
    },
  ],
};

describe("templates with the reseller binary against a real local service", () => {
  let service: ServedService;
  let env: Record<string, string>;

  beforeAll(async () => {
    service = await startServe({ args: ["--review-delay", "0"] });
    const res = await fetch(`${service.url}/api/v1/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Acme",
        contact_email: "owner@acme.test",
        send_invitation: false,
      }),
    });
    const workspace = ((await res.json()) as { data: { id: string } }).data.id;
    env = {
      ...serviceEnv(service),
      RESELLER_CONFIG_DIR: tempConfigDir(),
      RESELLER_WORKSPACE: workspace,
    };
  });
  afterAll(async () => {
    await service.stop();
  });

  function file(name: string, content: unknown): string {
    const path = join(service.dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  }

  it("lints a file offline: 0 when valid, 2 with every problem otherwise", async () => {
    const good = await reseller(["templates", "lint", file("good.json", orderUpdate)]);
    expect(good.exitCode).toBe(0);
    const bad = await reseller([
      "templates",
      "lint",
      file("bad.json", { ...orderUpdate, name: "Order Update", language: "en-US" }),
      "--json",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(JSON.parse(bad.stdout).error.details.map((p: { rule: string }) => p.rule)).toEqual([
      "name_format",
      "language_format",
    ]);
  });

  it("creates from a file and waits for the sandbox's approval", async () => {
    const run = await reseller(
      ["templates", "create", "--file", file("order.json", orderUpdate), "--wait", "--json"],
      { env },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: "order_update", status: "approved" });
    expect(run.stderr).toContain("waiting for the operator's review");
  });

  it("creates from flags; a content rule rejects it and --wait exits 6 with the reason", async () => {
    const run = await reseller(
      [
        "templates",
        "create",
        "--name",
        "shipping_note",
        "--category",
        "utility",
        "--language",
        "en",
        "--body",
        "Your parcel is on its way. Enjoy 10% off your next order!",
        "--wait",
      ],
      { env },
    );
    expect(run.exitCode).toBe(6);
    expect(run.stdout).toContain("rejection_reason\tINCORRECT_CATEGORY");
    expect(run.stderr).toContain("Rejected: shipping_note (en): INCORRECT_CATEGORY");
  });

  it("refuses a template that breaks a rule before sending it (exit 2)", async () => {
    const run = await reseller(
      [
        "templates",
        "create",
        "--name",
        "broken",
        "--category",
        "marketing",
        "--language",
        "en",
        "--body",
        "Hello {{1}}",
        "--example",
        "Ada",
      ],
      { env },
    );
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("components.0.text (--body): may not end with a variable");
    const list = await reseller(["templates", "list", "--name", "broken", "--json"], { env });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it("refuses a duplicate name and language with exit 5", async () => {
    const run = await reseller(["templates", "create", "--file", file("again.json", orderUpdate)], {
      env,
    });
    expect(run.exitCode).toBe(5);
    expect(run.stderr).toContain("template_exists");
  });

  it("lists templates with filters", async () => {
    const all = await reseller(["templates", "list", "--json"], { env });
    expect(all.exitCode).toBe(0);
    expect(JSON.parse(all.stdout).map((t: { name: string }) => t.name)).toEqual([
      "shipping_note",
      "order_update",
    ]);
    const rejected = await reseller(["templates", "list", "--status", "rejected"], { env });
    expect(rejected.stdout.split("\n")[0]).toMatch(
      /^tpl_\S+\tshipping_note\ten\tutility\trejected\tINCORRECT_CATEGORY\t/,
    );
  });

  it("deletes a rejected template with --yes, refuses an approved one, and needs --yes without a terminal", async () => {
    const ids = async (status: string) =>
      (await reseller(["templates", "list", "--status", status, "-q"], { env })).stdout.trim();
    const rejected = await ids("rejected");
    const approved = await ids("approved");

    const unconfirmed = await reseller(["templates", "delete", rejected], { env });
    expect(unconfirmed.exitCode).toBe(2);
    expect(unconfirmed.stderr).toContain("Pass --yes");

    const refused = await reseller(["templates", "delete", approved, "--yes"], { env });
    expect(refused.exitCode).toBe(5);
    expect(refused.stderr).toContain("template_not_deletable");

    const done = await reseller(["templates", "delete", rejected, "--yes"], { env });
    expect(done.exitCode).toBe(0);
    expect(await ids("rejected")).toBe("");
  });

  it("stores a draft, submits it, and lets the sandbox operator decide explicitly", async () => {
    const draft = await reseller(
      [
        "templates",
        "create",
        "--file",
        file("draft.json", { ...orderUpdate, language: "de" }),
        "--draft",
        "-q",
      ],
      { env },
    );
    expect(draft.exitCode).toBe(0);
    const id = draft.stdout.trim();
    expect(id).toMatch(/^tpl_/);

    const reviewDraft = await reseller(["sandbox", "templates", "review", id, "--approve"], {
      env,
    });
    expect(reviewDraft.exitCode).toBe(5);

    const submit = await reseller(["templates", "submit", id, "--wait", "--json"], { env });
    expect(submit.exitCode).toBe(0);
    expect(JSON.parse(submit.stdout).status).toBe("approved");

    const pause = await reseller(["sandbox", "templates", "review", id, "--pause", "--json"], {
      env,
    });
    expect(pause.exitCode).toBe(0);
    expect(JSON.parse(pause.stdout).status).toBe("paused");

    const reject = await reseller(["sandbox", "templates", "review", id, "--reject", "SCAM"], {
      env,
    });
    expect(reject.exitCode).toBe(5);

    const approve = await reseller(["sandbox", "templates", "review", id, "--approve", "--json"], {
      env,
    });
    expect(JSON.parse(approve.stdout).status).toBe("approved");
  });

  it("counts templates in the workspace's usage", async () => {
    const res = await fetch(`${service.url}/api/v1/workspaces/${env.RESELLER_WORKSPACE}`, {
      headers: { authorization: `Bearer ${service.token}` },
    });
    const usage = ((await res.json()) as { data: { usage: { templates: Record<string, number> } } })
      .data.usage;
    expect(usage.templates).toMatchObject({ total: 2, approved: 2 });
  });
});
