import { describe, expect, it } from "vitest";
import { parse } from "../helpers/parse-cli.js";

describe("contacts command-line parsing", () => {
  it("collects repeated --tag and --field for upsert", async () => {
    const { captured } = await parse([
      "contacts",
      "upsert",
      "-w",
      "ws_1",
      "--phone",
      "+4915112345678",
      "--tag",
      "vip",
      "--tag",
      "new",
      "--field",
      "city=Berlin",
      "--field",
      "shoe=38",
      "--opt-in",
      "opted_in",
    ]);
    expect(captured?.spec.handler).toBe("contacts/upsert");
    expect(captured?.options).toMatchObject({
      workspace: "ws_1",
      phone: "+4915112345678",
      tag: ["vip", "new"],
      field: ["city=Berlin", "shoe=38"],
      optIn: "opted_in",
    });
  });

  it("waits by default and takes --no-wait, --dry-run and the duplicate handling for import", async () => {
    const waits = await parse(["contacts", "import", "a.csv"]);
    expect(waits.captured?.options).toMatchObject({ wait: true, onDuplicate: "update" });
    expect(waits.captured?.args).toEqual(["a.csv"]);
    const { captured } = await parse([
      "contacts",
      "import",
      "a.csv",
      "--no-wait",
      "--dry-run",
      "--on-duplicate",
      "skip",
      "--default-country",
      "DE",
      "--errors",
      "e.csv",
    ]);
    expect(captured?.options).toMatchObject({
      wait: false,
      dryRun: true,
      onDuplicate: "skip",
      defaultCountry: "DE",
      errors: "e.csv",
    });
  });

  it("refuses values outside the choices before any handler runs", async () => {
    expect(
      (await parse(["contacts", "upsert", "--phone", "+491", "--opt-in", "opted_out"])).error,
    ).toBe("commander.invalidArgument");
    expect((await parse(["contacts", "import", "a.csv", "--on-duplicate", "merge"])).error).toBe(
      "commander.invalidArgument",
    );
    expect((await parse(["contacts", "list", "--opt-in-status", "maybe"])).error).toBe(
      "commander.invalidArgument",
    );
    expect((await parse(["contacts", "import"])).error).toBe("commander.missingArgument");
  });

  it("offers paging on contacts list, imports list and tags list", async () => {
    for (const argv of [
      ["contacts", "list"],
      ["contacts", "imports", "list"],
      ["tags", "list"],
    ]) {
      const { captured } = await parse([...argv, "--all", "--per-page", "100"]);
      expect(captured?.options).toMatchObject({ all: true, perPage: "100" });
    }
  });
});
