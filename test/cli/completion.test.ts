import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandTree } from "../../src/cli/commands/tree.js";
import { billingPeriods, workspaceStatuses } from "../../src/contract/vocabulary.js";
import { runCli, tempConfigDir } from "../helpers/cli.js";

const hasShell = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;

/** The completion script of a shell, as `reseller completion <shell>` prints it. */
async function script(shell: string): Promise<string> {
  const run = await runCli(["completion", shell]);
  expect(run.code).toBe(0);
  return run.stdout;
}

/** Saves a script to a temporary file and returns its path. */
function saved(text: string, name: string): string {
  const file = join(tempConfigDir(), name);
  writeFileSync(file, text);
  return file;
}

/**
 * What bash offers for a command line, as if TAB were pressed at its end: the words are split
 * the way bash splits them (at spaces, and at = and : which are in COMP_WORDBREAKS).
 */
function bashComplete(file: string, words: string[]): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ");
  const result = spawnSync(
    "bash",
    [
      "--norc",
      "--noprofile",
      "-c",
      // COMP_WORDBREAKS as an interactive bash sets it.
      `COMP_WORDBREAKS=$' \\t\\n"\\'><=;|&(:'; source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _reseller; printf '%s\\n' "\${COMPREPLY[@]}"`,
      "bash",
      file,
    ],
    { encoding: "utf8", cwd: tempConfigDir() },
  );
  expect(result.stderr).toBe("");
  return result.stdout.split("\n").filter((line) => line !== "");
}

describe.skipIf(!hasShell("bash"))("bash completion", () => {
  let file: string;
  const complete = async (...words: string[]) => {
    file ??= saved(await script("bash"), "reseller.bash");
    return bashComplete(file, words);
  };

  it("completes a command from its first letters", async () => {
    expect(await complete("reseller", "pl")).toEqual(["plans"]);
    if (commandTree.some((c) => c.name === "contacts")) {
      expect(await complete("reseller", "con")).toEqual(["contacts"]);
    }
    expect(await complete("reseller", "work")).toEqual(["workspaces"]);
  });

  it("offers a group's commands, with global options before them", async () => {
    expect(await complete("reseller", "--json", "plans", "")).toEqual(["list", "get"]);
  });

  it("offers the billing periods after --billing-period, also as --billing-period=", async () => {
    expect(await complete("reseller", "plans", "list", "--billing-period", "")).toEqual([
      ...billingPeriods,
    ]);
    expect(await complete("reseller", "plans", "list", "--billing-period", "y")).toEqual([
      "yearly",
    ]);
    // bash hands `--billing-period=mo` over as three words and replaces what follows the =.
    expect(await complete("reseller", "plans", "list", "--billing-period", "=", "mo")).toEqual([
      "monthly",
    ]);
    expect(await complete("reseller", "plans", "list", "--billing-period", "=")).toEqual([
      ...billingPeriods,
    ]);
  });

  it("offers statuses and scopes, keeping the part of plans:read bash does not replace", async () => {
    expect(await complete("reseller", "workspaces", "list", "--status", "")).toEqual([
      ...workspaceStatuses,
    ]);
    expect(
      await complete("reseller", "tokens", "create", "--scope", "workspaces", ":", "w"),
    ).toEqual(["write"]);
    expect(await complete("reseller", "tokens", "create", "--scope", "plans", ":")).toEqual([
      "read",
    ]);
  });

  it("offers a command's options, its paging and the global ones", async () => {
    const options = await complete("reseller", "workspaces", "list", "--");
    expect(options).toEqual(expect.arrayContaining(["--status", "--all", "--json", "--help"]));
    expect(options).not.toContain("--billing-period");
  });

  it("skips an option's value when finding the command", async () => {
    expect(await complete("reseller", "--profile", "plans", "pl")).toEqual(["plans"]);
    expect(await complete("reseller", "serve", "--port", "0", "ex")).toEqual(["exec"]);
  });

  it("offers the shells of completion and the methods of api", async () => {
    expect(await complete("reseller", "completion", "")).toEqual(["bash", "zsh", "fish"]);
    expect(await complete("reseller", "api", "P")).toEqual(["POST", "PUT", "PATCH"]);
  });

  it("offers commands to run after serve exec --", async () => {
    expect(await complete("reseller", "serve", "exec", "--", "bas")).toContain("bash");
  });

  it("is registered for the reseller command", async () => {
    file ??= saved(await script("bash"), "reseller.bash");
    const result = spawnSync(
      "bash",
      ["--norc", "-c", 'source "$1"; complete -p reseller', "bash", file],
      {
        encoding: "utf8",
      },
    );
    expect(result.stdout.trim()).toBe("complete -F _reseller reseller");
  });
});

describe("completion scripts", () => {
  it("generates zsh and fish scripts from the same tree", async () => {
    const zsh = await script("zsh");
    expect(zsh.startsWith("#compdef reseller\n")).toBe(true);
    expect(zsh).toContain(`reply=(${billingPeriods.map((p) => `'${p}'`).join(" ")})`);
    const fish = await script("fish");
    expect(fish).toContain(`-l billing-period -x -a '${billingPeriods.join(" ")}'`);
  });

  it.skipIf(!hasShell("zsh"))("writes a zsh script that zsh parses", async () => {
    const result = spawnSync("zsh", ["-n", saved(await script("zsh"), "_reseller")], {
      encoding: "utf8",
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it.skipIf(!hasShell("fish"))("gives fish the commands and values it completes", async () => {
    const file = saved(await script("fish"), "reseller.fish");
    const complete = (line: string) =>
      spawnSync("fish", ["--no-config", "-c", `source ${file}; complete -C '${line}'`], {
        encoding: "utf8",
      })
        .stdout.split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0]);
    expect(complete("reseller pl")).toEqual(["plans"]);
    expect(complete("reseller plans list --billing-period ")).toEqual([...billingPeriods].sort());
  });

  it("refuses a shell it does not know, listing the ones it does", async () => {
    const run = await runCli(["completion", "tcsh"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Allowed choices are bash, zsh, fish");
  });

  it("tells how to install the script in its help", async () => {
    const run = await runCli(["completion", "--help"]);
    expect(run.stdout).toContain("~/.local/share/bash-completion/completions/reseller");
    expect(run.stdout).toContain("~/.config/fish/completions/reseller.fish");
  });
});
