import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { orderUpdateDefinition } from "../../../../test/fixtures/templates.js";
import { runCli } from "../../../../test/helpers/cli.js";

function fileWith(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "lint-")), "template.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

// No API stubs and no token: lint never makes a request.
describe("reseller templates lint", () => {
  it("exits 0 for a valid template, with a preview on stderr at a terminal", async () => {
    const file = fileWith(orderUpdateDefinition);
    const run = await runCli(["templates", "lint", file], { tty: true, env: { NO_COLOR: "1" } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("order_update (en_US) follows every rule.");
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("│ Hi Ada, your order A-1042 has shipped.");
  });

  it("says when a valid template would still be rejected by the review's content rules, exit 0", async () => {
    const file = fileWith({
      ...orderUpdateDefinition,
      components: [
        {
          type: "BODY",
          text: "Hi {{1}}, your order {{2}} has shipped. 20% discount on your next one: bit.ly/x",
          example: { body_text: [["Ada", "A-1042"]] },
        },
      ],
    });
    const run = await runCli(["templates", "lint", file, "--json"], { env: { NO_COLOR: "1" } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).review).toEqual([
      expect.objectContaining({ rule: "url_shortener", reason: "INVALID_FORMAT" }),
      {
        rule: "marketing_wording",
        reason: "INCORRECT_CATEGORY",
        detail:
          "components.0.text: 'discount' is marketing wording, which makes this a marketing template, not utility",
      },
    ]);
    const told = await runCli(["templates", "lint", file], { env: { NO_COLOR: "1" } });
    expect(told.code).toBe(0);
    expect(told.stderr).toContain("The review may still reject it");
    expect(told.stderr).toContain("  INCORRECT_CATEGORY: components.0.text: 'discount'");
    const clean = await runCli(["templates", "lint", fileWith(orderUpdateDefinition), "--json"]);
    expect(JSON.parse(clean.stdout).review).toEqual([]);
  });

  it("takes the file as --file too, as templates create does; none at all is a usage error", async () => {
    const file = fileWith(orderUpdateDefinition);
    const run = await runCli(["templates", "lint", "--file", file], { env: { NO_COLOR: "1" } });
    expect(run.code, run.stderr).toBe(0);
    const none = await runCli(["templates", "lint"], { env: { NO_COLOR: "1" } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Missing the file to check.");
  });

  it("lists every problem with field and rule and exits 2, caught before any request", async () => {
    const file = fileWith({
      ...orderUpdateDefinition,
      name: "Order Update",
      components: [
        { type: "BODY", text: "Hi {{1}} {{2}}" },
        { type: "FOOTER", text: "{{1}}" },
      ],
    });
    const run = await runCli(["templates", "lint", file], { tty: true, env: { NO_COLOR: "1" } });
    expect(run.code).toBe(2);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^FIELD\s+RULE\s+PROBLEM$/);
    expect(run.stdout).toMatch(/name\s+name_format\s+must be lowercase letters/);
    expect(run.stdout).toMatch(/components\.0\.text\s+variable_adjacent/);
    expect(run.stdout).toMatch(/components\.0\.text\s+variable_position/);
    expect(run.stdout).toMatch(/components\.0\.example\.body_text\s+variable_example/);
    expect(run.stdout).toMatch(/components\.1\.text\s+footer_variables/);
    expect(run.stderr).toContain("5 problems; the service would refuse this template.");
  });

  it("prints each problem as a detail of the error with --json, as the service would refuse it", async () => {
    const file = fileWith({ ...orderUpdateDefinition, language: "english" });
    const run = await runCli(["templates", "lint", file, "--json"]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        status: null,
        error_code: "validation_failed",
        message: `${file}: 1 problem; the service would refuse this template.`,
        details: [
          {
            field: "language",
            rule: "language_format",
            message: "must be a language code such as en, en_US, pt_BR or fil; got 'english'",
          },
        ],
        request_id: null,
      },
    });
  });

  it("reads standard input with -, and exits 2 for text that is not JSON (no template to check)", async () => {
    const ok = await runCli(["templates", "lint", "-"], {
      stdin: JSON.stringify(orderUpdateDefinition),
    });
    expect(ok.code).toBe(0);
    const broken = await runCli(["templates", "lint", "-"], { stdin: "{ nope" });
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toContain("'-' is not valid JSON");
  });

  it("exits 2 when the file cannot be read", async () => {
    const run = await runCli(["templates", "lint", "/no/such/file.json"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Cannot read '/no/such/file.json': no such file.");
  });
});
