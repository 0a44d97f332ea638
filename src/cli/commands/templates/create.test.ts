import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  approvedTemplate,
  envelope,
  errorBody,
  orderUpdateDefinition,
  pendingTemplate,
  workspaceId,
} from "../../../../test/fixtures/templates.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

const path = `/api/v1/workspaces/${workspaceId}/templates`;

function fileWith(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "tpl-")), "template.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("reseller templates create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  /** Stubs the POST; `sent()` answers the bodies sent (undici may match a body more than once). */
  function stubCreate(answer: object = pendingTemplate, status = 201) {
    const bodies = new Set<string>();
    api.pool
      .intercept({
        path,
        method: "POST",
        body: (body: string) => {
          bodies.add(body);
          return true;
        },
      })
      .reply(status, status < 300 ? envelope(answer) : answer, { headers: jsonHeaders });
    return {
      get all() {
        return [...bodies].map((b) => JSON.parse(b));
      },
    };
  }

  function stubGet(answer: unknown) {
    api.pool
      .intercept({ path: `${path}/${pendingTemplate.id}`, method: "GET" })
      .reply(200, envelope(answer), { headers: jsonHeaders });
  }

  const flags = [
    "templates",
    "create",
    "--name",
    "order_update",
    "--category",
    "utility",
    "--language",
    "en_US",
    "--body",
    "Hi {{1}}, your order {{2}} has shipped.",
    "--example",
    "Ada",
    "--example",
    "A-1042",
    "--button",
    "URL:Track order:https://shop.example/o/{{1}}|A-1042",
    "--button",
    "QUICK_REPLY:Thanks",
  ];

  it("builds the template from flags, sends it, and says how to follow the review", async () => {
    const sent = stubCreate();
    const run = await runCli(flags, { env: env(), dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(sent.all).toEqual([orderUpdateDefinition]);
    expect(run.stdout).toContain("id\ttpl_01order\n");
    expect(run.stdout).toContain("status\tpending\n");
    expect(run.stderr).toContain("Submitted order_update (en_US) for review as tpl_01order");
    expect(run.stderr).not.toContain("│");
  });

  it("shows the rendered preview with example values on stderr at a terminal", async () => {
    stubCreate();
    const run = await runCli(flags, { tty: true, env: env(), dispatcher: api.agent });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("order_update · en_US · utility");
    expect(run.stderr).toContain("│ Hi Ada, your order A-1042 has shipped.");
    expect(run.stderr).toContain("│ ↗ Track order (https://shop.example/o/A-1042)");
    expect(run.stderr).toContain("│ ↩ Thanks");
    expect(run.stdout).toMatch(/Status:\s+pending/);
  });

  it("sends a file's template, dropping the fields the service sets, and marks a draft", async () => {
    const sent = stubCreate({ ...pendingTemplate, status: "draft", submitted_at: null });
    const file = fileWith({ ...approvedTemplate, category: "UTILITY" });
    const run = await runCli(["templates", "create", "--file", file, "--draft"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    expect(sent.all).toEqual([{ ...orderUpdateDefinition, draft: true }]);
    expect(run.stderr).toContain("Stored order_update (en_US) as draft tpl_01order");
  });

  it("reads the file from stdin with --file -", async () => {
    const sent = stubCreate();
    const run = await runCli(["templates", "create", "--file", "-"], {
      env: env(),
      dispatcher: api.agent,
      stdin: JSON.stringify(orderUpdateDefinition),
    });
    expect(run.code).toBe(0);
    expect(sent.all).toEqual([orderUpdateDefinition]);
  });

  it("lists every broken rule with the flag it came from, exits 2 and sends nothing", async () => {
    const run = await runCli(
      [
        "templates",
        "create",
        "--name",
        "Order Update",
        "--category",
        "utility",
        "--language",
        "en",
        "--body",
        "{{1}} your order shipped.",
        "--footer",
        "f".repeat(61),
        "--button",
        "QUICK_REPLY:A button text that is far too long",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("The template breaks 5 rules of WhatsApp; nothing was sent.");
    expect(run.stderr).toContain("  name (--name): must be lowercase letters");
    expect(run.stderr).toContain(
      "  components.0.text (--body): may not start with a variable ({{1}}); put some words before it [variable_position]",
    );
    expect(run.stderr).toContain("components.0.example.body_text (--example)");
    expect(run.stderr).toContain(
      "components.1.text (--footer): the footer is at most 60 characters; got 61 [footer_length]",
    );
    expect(run.stderr).toContain(
      "components.2.buttons.0.text (--button #1): button text is 1 to 25 characters",
    );
    expect(run.stdout).toBe("");
  });

  it("puts the problems in the JSON error with --json", async () => {
    const file = fileWith({ ...orderUpdateDefinition, language: "en-US" });
    const run = await runCli(["templates", "create", "--file", file, "--json"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error).toMatchObject({
      error_code: "usage",
      details: [
        { field: "language", rule: "language_format", message: expect.stringContaining("en_US") },
      ],
    });
  });

  it("refuses --file mixed with definition flags, a missing file, bad JSON and a bad button SPEC", async () => {
    const file = fileWith(orderUpdateDefinition);
    const mixed = await runCli(["templates", "create", "--file", file, "--name", "x"], {
      env: env(),
    });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("--file cannot be combined with --name");

    const missing = await runCli(["templates", "create", "--file", "/nope/t.json"], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Cannot read '/nope/t.json': no such file.");

    const broken = await runCli(["templates", "create", "--file", fileWith("{")], { env: env() });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("is not valid JSON");

    const button = await runCli([...flags.slice(0, 10), "--button", "URL:Shop"], { env: env() });
    expect(button.code).toBe(2);
    expect(button.stderr).toContain(
      "--button 'URL:Shop' is not a URL button: write URL:<text>:<url>[|<example>].",
    );

    const kind = await runCli([...flags.slice(0, 10), "--button", "CALL:Us"], { env: env() });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain("unknown button type 'CALL'");

    const nothing = await runCli(["templates", "create"], { env: env() });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(
      "--file FILE, or with --name, --category, --language and --body",
    );

    const noBody = await runCli(flags.slice(0, 8), { env: env() });
    expect(noBody.code).toBe(2);
    expect(noBody.stderr).toContain("Missing --body.");

    const two = await runCli(["templates", "create", "--name", "x_y", "--category", "marketing"], {
      env: env(),
    });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("Missing --language, --body.");
  });

  it("builds an authentication template from flags without a body", async () => {
    const sent = stubCreate();
    const run = await runCli(
      [
        "templates",
        "create",
        "--name",
        "login_code",
        "--category",
        "authentication",
        "--language",
        "en",
        "--button",
        "OTP:COPY_CODE:Copy code",
      ],
      { env: env(), dispatcher: api.agent },
    );
    expect(run.code).toBe(0);
    expect(sent.all).toEqual([
      {
        name: "login_code",
        category: "authentication",
        language: "en",
        components: [
          { type: "BODY" },
          { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy code" }] },
        ],
      },
    ]);
  });

  it("asks at a terminal for what the flags leave out, an authentication template's code button included", async () => {
    const sent = stubCreate();
    const prompter = scriptedPrompter({
      "Template name": "login_code",
      Category: "authentication",
      "Language code": "en",
      "Copy-code button text": "Copy it",
    });
    const run = await runCli(["templates", "create"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(4);
    expect(sent.all[0]).toMatchObject({
      name: "login_code",
      category: "authentication",
      components: [
        { type: "BODY" },
        { type: "BUTTONS", buttons: [{ type: "OTP", otp_type: "COPY_CODE", text: "Copy it" }] },
      ],
    });
  });

  it("asks at a terminal for an example of each variable of the body it was given", async () => {
    const sent = stubCreate();
    const prompter = scriptedPrompter({
      "Template name": "welcome_note",
      Category: "marketing",
      "Language code": "en",
      "Body text": "Hello {{1}}, welcome to {{2}}!",
      "Example for {{1}}": "Anna",
      "Example for {{2}}": "Café Olé",
    });
    const run = await runCli(["templates", "create"], {
      tty: true,
      env: env(),
      dispatcher: api.agent,
      prompter,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(sent.all[0]).toMatchObject({
      components: [
        {
          type: "BODY",
          text: "Hello {{1}}, welcome to {{2}}!",
          example: { body_text: [["Anna", "Café Olé"]] },
        },
      ],
    });
  });

  describe("--wait", () => {
    it("polls until the operator approves, then exits 0", async () => {
      stubCreate();
      stubGet(pendingTemplate);
      stubGet(approvedTemplate);
      const run = await runCli([...flags, "--wait"], { env: env(), dispatcher: api.agent });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("status\tapproved\n");
      expect(run.stderr).toContain("waiting for the operator's review…");
      expect(run.stderr).toContain("Approved: order_update (en_US) can be used in campaigns.");
    });

    it("exits 6 with the reason on stderr when the operator rejects it, --json too", async () => {
      stubCreate();
      stubGet({
        ...pendingTemplate,
        status: "rejected",
        rejection_reason: "INVALID_FORMAT",
        rejection_detail: "'bit.ly' is a URL shortener",
      });
      const run = await runCli([...flags, "--wait", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(6);
      // A failure, so --json prints the error (cli-contract.md), with the operator's reason.
      expect(JSON.parse(run.stdout).error).toMatchObject({
        error_code: "template_rejected",
        details: [
          { field: "rejection_reason", message: "INVALID_FORMAT" },
          { field: "rejection_detail", message: "'bit.ly' is a URL shortener" },
          { field: "id", message: pendingTemplate.id },
        ],
      });
      expect(run.stderr).toContain("Rejected: order_update (en_US): INVALID_FORMAT");
    });

    it("gives up after --timeout with exit 5 (not yet in the state waited for), still pending", async () => {
      stubCreate();
      // A look every second for the first ten.
      for (let i = 0; i < 4; i++) stubGet(pendingTemplate);
      const run = await runCli([...flags, "--wait", "--timeout", "4"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(5);
      expect(run.stderr).toContain("Still pending after 4 s");
    });
  });

  it("reports the service's refusal with its error code and exit 5", async () => {
    stubCreate(
      errorBody(
        "template_exists",
        "A template named 'order_update' in language 'en_US' already exists.",
      ),
      409,
    );
    const run = await runCli(flags, { env: env(), dispatcher: api.agent });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("(template_exists, HTTP 409)");
  });

  it("needs a workspace", async () => {
    const run = await runCli(flags, { env: api.env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No workspace given.");
  });
});
