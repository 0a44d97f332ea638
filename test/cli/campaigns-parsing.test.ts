import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { parse } from "../helpers/parse-cli.js";

describe("channels, campaigns and sandbox inbound command-line parsing", () => {
  it("collects repeated --tag, --contacts and --var in order, with -w, --schedule and --yes", async () => {
    const { captured } = await parse([
      "campaigns",
      "create",
      "-w",
      "ws_1",
      "--name",
      "Spring",
      "--channel",
      "ch_1",
      "--template",
      "spring_news",
      "--language",
      "en_US",
      "--tag",
      "vip",
      "--tag",
      "gold",
      "--contacts",
      "ct_1,ct_2",
      "--var",
      "1=first_name",
      "--var",
      "2=custom.city",
      "--schedule",
      "2030-12-01T09:00:00Z",
      "-y",
      "--dry-run",
    ]);
    expect(captured?.spec.handler).toBe("campaigns/create");
    expect(captured?.options).toMatchObject({
      workspace: "ws_1",
      name: "Spring",
      channel: "ch_1",
      template: "spring_news",
      language: "en_US",
      tag: ["vip", "gold"],
      contacts: ["ct_1,ct_2"],
      var: ["1=first_name", "2=custom.city"],
      schedule: "2030-12-01T09:00:00Z",
      yes: true,
      dryRun: true,
    });
  });

  it("maps each command to its handler with its arguments", async () => {
    const cases: [string[], string, Record<string, unknown>][] = [
      [["channels", "list", "--all"], "channels/list", { all: true }],
      [
        ["channels", "add", "--phone", "+49151", "--name", "Main"],
        "channels/add",
        { phone: "+49151", name: "Main" },
      ],
      [["campaigns", "list", "--status", "running"], "campaigns/list", { status: "running" }],
      [["campaigns", "get", "cmp_1"], "campaigns/get", {}],
      [["campaigns", "launch", "cmp_1", "--yes"], "campaigns/launch", { yes: true }],
      [["campaigns", "stats", "cmp_1", "--watch"], "campaigns/stats", { watch: true }],
      [
        ["sandbox", "inbound", "--from", "+49151", "--text", "STOP", "-w", "ws_1"],
        "sandbox/inbound",
        { from: "+49151", text: "STOP", workspace: "ws_1" },
      ],
    ];
    for (const [argv, handler, options] of cases) {
      const { captured } = await parse(argv);
      expect(captured?.spec.handler, argv.join(" ")).toBe(handler);
      expect(captured?.options, argv.join(" ")).toMatchObject(options);
      if (argv[2]?.startsWith("cmp_")) expect(captured?.args).toEqual(["cmp_1"]);
    }
  });

  it("refuses an unknown campaign status and a missing campaign id", async () => {
    const status = await parse(["campaigns", "list", "--status", "done"]);
    expect(status.error).toBe("commander.invalidArgument");
    expect(status.errors).toContain(
      "Allowed choices are draft, scheduled, running, paused, completed, failed, cancelled",
    );
    expect((await parse(["campaigns", "launch"])).error).toBe("commander.missingArgument");
    expect((await parse(["campaigns", "stats"])).error).toBe("commander.missingArgument");
  });

  it("keeps one sandbox group holding both templates review and inbound", async () => {
    const program = buildProgram({ writeOut: () => {}, writeErr: () => {} }, async () => {});
    const sandbox = program.commands.filter((c) => c.name() === "sandbox");
    expect(sandbox).toHaveLength(1);
    expect(sandbox[0]?.commands.map((c) => c.name())).toEqual(["templates", "inbound"]);
  });
});
