import { describe, expect, it } from "vitest";
import { baseUrlProblem } from "../../src/cli/base-url.js";
import { type Prompter, parseYesNo } from "../../src/cli/prompts.js";
import { runCli } from "../helpers/cli.js";

/** A prompter whose every question is answered by Ctrl-C, as @inquirer/prompts reports it. */
function ctrlC(): Prompter {
  const interrupt = async (): Promise<never> => {
    const error = new Error("User force closed the prompt with SIGINT");
    error.name = "ExitPromptError";
    throw error;
  };
  return { input: interrupt, password: interrupt, confirm: interrupt, select: interrupt };
}

describe("Ctrl-C at a prompt", () => {
  it("exits 130 quietly, without an 'Unexpected error'", async () => {
    const run = await runCli(["login"], { tty: true, prompter: ctrlC() });
    expect(run.code).toBe(130);
    expect(run.stderr).not.toContain("Unexpected error");
    expect(run.stderr).not.toContain("SIGINT");
    expect(run.stdout).toBe("");
  });
});

describe("the yes/no prompt", () => {
  it("takes y, yes, n and no in any case, and Enter for the default", () => {
    expect(parseYesNo("y")).toBe(true);
    expect(parseYesNo(" YES ")).toBe(true);
    expect(parseYesNo("n", true)).toBe(false);
    expect(parseYesNo("No")).toBe(false);
    expect(parseYesNo("", false)).toBe(false);
    expect(parseYesNo("", true)).toBe(true);
  });

  it("refuses anything else, `maybe` included, so the question is asked again", () => {
    expect(parseYesNo("maybe", true)).toBeUndefined();
    expect(parseYesNo("yep", false)).toBeUndefined();
    expect(parseYesNo("nope", true)).toBeUndefined();
  });
});

describe("the base URL", () => {
  it("login refuses one that is not a URL with exit 2 and says what is expected", async () => {
    const run = await runCli(["login", "--base-url", "not a url", "--token-stdin"], {
      stdin: "rsk_x\n",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Invalid base URL (from --base-url): 'not a url' is not a URL");
    expect(run.stderr).toContain("http://127.0.0.1:8420");
    expect(run.stderr).not.toContain("Unexpected error");
  });

  it("login refuses a URL that is not http or https", async () => {
    const run = await runCli(["login", "--base-url", "ftp://example.com", "--token-stdin"], {
      stdin: "rsk_x\n",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is not an http or https URL");
  });

  it("refuses a base URL that ends in the API's path, which every request adds again", async () => {
    for (const [url, base] of [
      ["http://127.0.0.1:8420/api/v1", "http://127.0.0.1:8420"],
      ["https://example.com/reseller/api/v1/", "https://example.com/reseller"],
    ]) {
      const run = await runCli(["plans", "list"], {
        env: { RESELLER_BASE_URL: url as string, RESELLER_TOKEN: "rsk_x" },
      });
      expect(run.code, url).toBe(2);
      expect(run.stderr).toContain(`give the service's address without it: ${base}.`);
    }
    // A service mounted at /api behind a proxy is an address like any other.
    expect(baseUrlProblem("https://example.com/api")).toBeUndefined();
  });

  it("any command refuses a bad RESELLER_BASE_URL before any request, exit 2", async () => {
    const run = await runCli(["plans", "list"], {
      env: { RESELLER_BASE_URL: "127.0.0.1:8420", RESELLER_TOKEN: "rsk_x" },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Invalid base URL (from RESELLER_BASE_URL)");
  });
});
