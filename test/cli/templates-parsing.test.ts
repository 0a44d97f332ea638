import { describe, expect, it } from "vitest";
import { parse } from "../helpers/parse-cli.js";

describe("templates command-line parsing", () => {
  it("collects repeated --button and --example in order, with the workspace and wait flags", async () => {
    const { captured } = await parse([
      "templates",
      "create",
      "-w",
      "ws_1",
      "--name",
      "n",
      "--category",
      "utility",
      "--language",
      "en",
      "--body",
      "Hi {{1}} and {{2}}.",
      "--example",
      "a",
      "--example",
      "b",
      "--button",
      "QUICK_REPLY:Yes",
      "--button",
      "QUICK_REPLY:No",
      "--wait",
    ]);
    expect(captured?.spec.handler).toBe("templates/create");
    expect(captured?.options).toMatchObject({
      workspace: "ws_1",
      example: ["a", "b"],
      button: ["QUICK_REPLY:Yes", "QUICK_REPLY:No"],
      wait: true,
    });
    // 600 s unless given: no parsed default, so a --timeout without --wait can be told apart.
    expect(captured?.options.timeout).toBeUndefined();
  });

  it("offers categories and statuses as choices, refusing others", async () => {
    expect((await parse(["templates", "create", "--category", "promo"])).error).toBe(
      "commander.invalidArgument",
    );
    expect((await parse(["templates", "list", "--status", "gone"])).error).toBe(
      "commander.invalidArgument",
    );
    const { captured } = await parse(["templates", "list", "--status", "paused", "--all"]);
    expect(captured?.options).toMatchObject({ status: "paused", all: true });
  });

  it("takes lint's file as an argument or as --file, and delete's --yes", async () => {
    expect((await parse(["templates", "lint", "t.json"])).captured?.args).toEqual(["t.json"]);
    expect((await parse(["templates", "lint", "--file", "t.json"])).captured?.options.file).toBe(
      "t.json",
    );
    expect((await parse(["templates", "delete", "tpl_1", "-y"])).captured?.options.yes).toBe(true);
  });

  it("parses the sandbox review decision, with reasons as choices", async () => {
    const { captured } = await parse([
      "sandbox",
      "templates",
      "review",
      "tpl_1",
      "--reject",
      "INVALID_FORMAT",
      "--detail",
      "shortener",
    ]);
    expect(captured?.spec.handler).toBe("sandbox/templates-review");
    expect(captured?.options).toMatchObject({ reject: "INVALID_FORMAT", detail: "shortener" });
    expect(
      (await parse(["sandbox", "templates", "review", "tpl_1", "--reject", "BAD"])).error,
    ).toBe("commander.invalidArgument");
  });

  it("gives serve a --review-delay defaulting to 5 seconds", async () => {
    expect((await parse(["serve"])).captured?.options.reviewDelay).toBe("5");
    expect((await parse(["serve", "--review-delay", "0"])).captured?.options.reviewDelay).toBe("0");
  });
});
