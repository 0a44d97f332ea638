import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { type CommandSpec, type GroupSpec, isGroup } from "../../src/cli/command-spec.js";
import { commandTree } from "../../src/cli/commands/tree.js";
import { loadHandler } from "../../src/cli/module-loader.js";
import { buildProgram } from "../../src/cli/program.js";
import { parse } from "../helpers/parse-cli.js";

function leaves(
  specs: (CommandSpec | GroupSpec)[],
  prefix: string[] = [],
): { path: string[]; spec: CommandSpec }[] {
  return specs.flatMap((s) =>
    isGroup(s)
      ? leaves(s.commands, [...prefix, s.name])
      : [
          { path: [...prefix, s.name], spec: s },
          ...leaves(s.subcommands ?? [], [...prefix, s.name]),
        ],
  );
}

/** Every command of the program as commander built it, the program itself included. */
function allCommands(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return [
    { path: ["reseller", ...path].join(" "), command },
    ...command.commands.flatMap((c) => allCommands(c, [...path, c.name()])),
  ];
}

/** A command's --help exactly as printed, the text added after it included. */
function helpOf(command: Command): string {
  let text = "";
  command.configureOutput({
    writeOut: (t) => {
      text += t;
    },
  });
  command.outputHelp();
  return text;
}

describe("command-line parsing", () => {
  it("maps plans list flags to options, global flags included wherever they stand", async () => {
    const { captured } = await parse([
      "--json",
      "plans",
      "list",
      "--billing-period",
      "yearly",
      "--include-private",
      "--debug",
    ]);
    expect(captured?.spec.handler).toBe("plans/list");
    expect(captured?.options).toMatchObject({
      json: true,
      billingPeriod: "yearly",
      includePrivate: true,
      debug: true,
    });
  });

  it("turns --no-color into color: false", async () => {
    const { captured } = await parse(["plans", "list", "--no-color"]);
    expect(captured?.options.color).toBe(false);
  });

  it("refuses a billing period outside the vocabulary before any request", async () => {
    const { error, errors } = await parse(["plans", "list", "--billing-period", "weekly"]);
    expect(error).toBe("commander.invalidArgument");
    expect(errors).toContain(
      "Allowed choices are monthly, quarterly, half_yearly, yearly, lifetime",
    );
  });

  it("takes a choice in any case and passes it on as the vocabulary spells it", async () => {
    const list = await parse(["templates", "list", "-w", "ws_1", "--status", "REJECTED"]);
    expect(list.captured?.options.status).toBe("rejected");
    const argv = ["tokens", "create", "--name", "ci", "--scope", "Plans:Read"];
    expect((await parse(argv)).captured?.options.scope).toEqual(["plans:read"]);
  });

  it("turns --no-invite into invite: false, and leaves invite true without it", async () => {
    const base = ["workspaces", "create", "--name", "Acme", "--email", "o@acme.test"];
    expect((await parse([...base, "--no-invite"])).captured?.options.invite).toBe(false);
    expect((await parse(base)).captured?.options.invite).toBe(true);
  });

  it("collects a repeated --scope and still checks each against the vocabulary", async () => {
    const argv = ["tokens", "create", "--name", "ci", "--scope", "plans:read"];
    const { captured } = await parse([...argv, "--scope", "workspaces:read"]);
    expect(captured?.options.scope).toEqual(["plans:read", "workspaces:read"]);
    const { error, errors } = await parse([...argv, "--scope", "everything"]);
    expect(error).toBe("commander.invalidArgument");
    expect(errors).toContain("Allowed choices are plans:read, workspaces:read");
  });

  it("gives commands inside a workspace -w/--workspace", async () => {
    const { captured } = await parse(["workspaces", "tokens", "list", "-w", "ws_1", "--all"]);
    expect(captured?.options).toMatchObject({ workspace: "ws_1", all: true });
  });

  it("takes -w wherever --workspace is taken, a filter such as events list's included", async () => {
    const { captured } = await parse(["events", "list", "-w", "ws_1"]);
    expect(captured?.options).toMatchObject({ workspace: "ws_1" });
    for (const { path, command } of allCommands(
      buildProgram({ writeOut: () => {}, writeErr: () => {} }, async () => {}),
    )) {
      const workspace = command.options.find((o) => o.long === "--workspace");
      if (workspace) expect(workspace.short, path).toBe("-w");
    }
  });

  it("refuses an unknown option", async () => {
    const { error } = await parse(["plans", "list", "--bogus"]);
    expect(error).toBe("commander.unknownOption");
  });

  it("gives every command a summary and at least one example in its help", async () => {
    for (const { path, spec } of leaves(commandTree)) {
      expect(spec.summary, path.join(" ")).not.toBe("");
      expect(spec.examples.length, path.join(" ")).toBeGreaterThan(0);
      // Examples may be pipelines or loops, but each must run the command itself.
      for (const example of spec.examples) {
        expect(example, path.join(" ")).toContain(`reseller ${path[0]}`.trim());
      }
    }
  });

  it("prints a summary and examples in the --help of every command and group", () => {
    const program = buildProgram({ writeOut: () => {}, writeErr: () => {} }, async () => {});
    const commands = allCommands(program);
    expect(commands.map((c) => c.path)).toContain("reseller serve exec");
    for (const { path, command } of commands) {
      const help = helpOf(command);
      const flat = help.replace(/\s+/g, " ");
      const summary = command.summary() || command.description();
      expect(summary, path).not.toBe("");
      // The one line the parent's list shows heads the command's own help as well.
      expect(flat, path).toContain(summary.replace(/\s+/g, " "));
      expect(help, path).toContain("Examples:\n  $ reseller");
      for (const option of command.options.filter((o) => o.argChoices)) {
        expect(flat, `${path} ${option.long}`).toContain(`(choices: "${option.argChoices?.[0]}"`);
      }
      for (const option of command.options.filter((o) => typeof o.defaultValue === "string")) {
        expect(flat, `${path} ${option.long}`).toContain(`default: "${option.defaultValue}")`);
      }
    }
  });

  it("lists each command the same in `reseller --help` as the full tree (and the reference) does", () => {
    const quiet = { writeOut: () => {}, writeErr: () => {} };
    const listing = (expand: string) =>
      helpOf(buildProgram(quiet, async () => {}, expand)).split("Commands:")[1];
    // `none` is what `reseller --help` builds: every top-level command as a stub.
    expect(listing("none")).toBe(listing("all"));
  });

  it("keeps serve's own flags and runs serve exec with everything after -- untouched", async () => {
    const served = await parse(["serve", "--port", "0", "--db", "x.db"]);
    expect(served.captured?.spec.handler).toBe("serve/serve");
    expect(served.captured?.options).toMatchObject({ port: "0", db: "x.db" });
    const argv = [
      "serve",
      "--plans",
      "p.json",
      "exec",
      "--",
      "node",
      "-e",
      "1",
      "--json",
      "--port",
    ];
    const { captured } = await parse(argv);
    expect(captured?.spec.handler).toBe("serve/exec");
    expect(captured?.args).toEqual(["node", "-e", "1", "--json", "--port"]);
    expect(captured?.options).toMatchObject({ plans: "p.json" });
    expect(captured?.options.json).toBeUndefined();
    expect((await parse(["serve", "exec"])).error).toBe("commander.missingArgument");
    expect((await parse(["serve", "bogus"])).error).toBe("commander.excessArguments");
  });

  it("takes api's method from a fixed list and its body from --data", async () => {
    const { captured } = await parse(["api", "POST", "workspaces", "--data", "{}", "--paginate"]);
    expect(captured?.args).toEqual(["POST", "workspaces"]);
    expect(captured?.options).toMatchObject({ data: "{}", paginate: true });
    const { error, errors } = await parse(["api", "FETCH", "/api/v1/plans"]);
    expect(error).toBe("commander.invalidArgument");
    expect(errors).toContain("Allowed choices are GET, POST, PUT, PATCH, DELETE");
  });

  it("has a loadable handler exporting run() for every command", async () => {
    for (const { spec } of leaves(commandTree)) {
      await expect(loadHandler(spec.handler)).resolves.toBeTypeOf("function");
    }
  });
});
