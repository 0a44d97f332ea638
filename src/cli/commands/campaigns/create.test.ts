import { afterEach, describe, expect, it } from "vitest";
import {
  channel,
  draftCampaign,
  envelope,
  errorBody,
  listEnvelope,
  preview,
  scheduledCampaign,
  stubRequest,
  workspaceId,
} from "../../../../test/fixtures/campaigns.js";
import { approvedTemplate } from "../../../../test/fixtures/templates.js";
import { runCli, scriptedPrompter } from "../../../../test/helpers/cli.js";
import { mockApi } from "../../../../test/helpers/mock-api.js";
import { variableMappingFrom } from "./campaign-input.js";

const path = `/api/v1/workspaces/${workspaceId}/campaigns`;
const base = [
  "campaigns",
  "create",
  "--name",
  "Spring launch",
  "--channel",
  channel.id,
  "--template",
  "spring_news",
  "--language",
  "en_US",
];
const body = {
  name: "Spring launch",
  channel_id: channel.id,
  template_name: "spring_news",
  template_language: "en_US",
  audience: { all: true },
  variable_mapping: { "1": "first_name" },
};

describe("reseller campaigns create", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });
  const env = () => ({ ...api.env, RESELLER_WORKSPACE: workspaceId, NO_COLOR: "1" });

  describe("without a terminal", () => {
    it("creates a draft at once, with no preview and no question", async () => {
      const create = stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const run = await runCli([...base, "--all", "--var", "1=first_name"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(create.body()).toEqual(body);
      expect(run.stdout).toContain("status\tdraft\n");
      expect(run.stderr).toBe(
        "Created draft campaign cmp_01spring (Spring launch). Launch it with `reseller campaigns launch cmp_01spring`.\n",
      );
    });

    it("names the workspace in the command it suggests when -w chose it, so the next command runs where this one did", async () => {
      stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const run = await runCli([...base, "--all", "--var", "1=first_name", "-w", workspaceId], {
        env: { ...api.env, NO_COLOR: "1" },
        dispatcher: api.agent,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        `Launch it with \`reseller campaigns launch cmp_01spring -w ${workspaceId}\`.`,
      );
    });

    it("builds tags, contact ids, every --var and a UTC --schedule into the body", async () => {
      const create = stubRequest(api, "POST", path, envelope(scheduledCampaign), { status: 201 });
      const run = await runCli(
        [
          ...base,
          "--tag",
          "vip",
          "--tag",
          "gold",
          "--var",
          "1=first_name",
          "--var",
          "{{2}}=custom.city",
          "--schedule",
          "2030-12-01T10:00:00+01:00",
          "--json",
        ],
        { env: env(), dispatcher: api.agent },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(create.body()).toEqual({
        ...body,
        audience: { tags: ["vip", "gold"] },
        variable_mapping: { "1": "first_name", "2": "custom.city" },
        scheduled_at: "2030-12-01T09:00:00Z",
      });
      expect(JSON.parse(run.stdout)).toEqual(scheduledCampaign);

      const byIds = stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      await runCli([...base, "--contacts", "ct_1, ct_2", "--contacts", "ct_3,ct_1"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(byIds.body()).toMatchObject({
        audience: { contact_ids: ["ct_1", "ct_2", "ct_3"] },
        variable_mapping: {},
      });
    });

    it("maps a URL or COPY_CODE button's value with --var button.<index>=field", async () => {
      const create = stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const run = await runCli(
        [...base, "--all", "--var", "1=first_name", "--var", "button.1=custom.order_id"],
        { env: env(), dispatcher: api.agent },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(create.body()).toEqual({
        ...body,
        variable_mapping: { "1": "first_name", "button.1": "custom.order_id" },
      });
    });

    it("refuses a missing or doubled audience, naming the flags, before any request", async () => {
      for (const audience of [
        [],
        ["--all", "--tag", "vip"],
        ["--tag", "vip", "--contacts", "ct_1"],
      ]) {
        const run = await runCli([...base, ...audience], { env: env(), dispatcher: api.agent });
        expect(run.code, audience.join(" ")).toBe(2);
        expect(run.stderr).toMatch(/--all, --tag.* or --contacts/);
      }
    });

    it("names every missing required flag", async () => {
      const run = await runCli(["campaigns", "create", "--name", "X", "--all"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("Missing --channel, --template, --language.");
    });

    it("takes --var with any custom field key a contact may hold", () => {
      expect(variableMappingFrom({ var: ["1=custom.Plan Name", "{{2}} = custom.Größe"] })).toEqual({
        "1": "custom.Plan Name",
        "2": "custom.Größe",
      });
    });

    it("takes --var header.1 for a header {{1}} that differs from the body's", () => {
      expect(variableMappingFrom({ var: ["1=custom.order", "header.1=first_name"] })).toEqual({
        "1": "custom.order",
        "header.1": "first_name",
      });
    });

    it("refuses a --var that is not n=field or names an unknown field", async () => {
      const cases: [string, string][] = [
        ["first_name", "is not n=field"],
        ["0=first_name", "is not n=field"],
        ["button.x=first_name", "button.<index>"],
        ["header.2=first_name", "header.1 for a header {{1}}"],
        ["1=nickname", "first_name, last_name, phone, email or custom.<key>"],
        ["1=custom.", "custom.<key>"],
        [`1=custom.${"k".repeat(65)}`, "custom field keys are 1 to 64 characters"],
      ];
      for (const [value, problem] of cases) {
        const run = await runCli([...base, "--all", "--var", value], {
          env: env(),
          dispatcher: api.agent,
        });
        expect(run.code, value).toBe(2);
        expect(run.stderr, value).toContain(problem);
      }
      const twice = await runCli(
        [...base, "--all", "--var", "1=first_name", "--var", "1=last_name"],
        { env: env(), dispatcher: api.agent },
      );
      expect(twice.stderr).toContain("--var gives {{1}} twice");
    });

    it("refuses a --schedule that is not ISO 8601, has no time zone, or has passed", async () => {
      const cases: [string, string][] = [
        ["tomorrow 9am", "expects an ISO 8601 date and time"],
        ["2030-12-01T09:00:00", "has no time zone"],
        ["2030-02-30T09:00:00Z", "is not a real date"],
        ["2020-01-01T09:00:00Z", "must be in the future"],
      ];
      for (const [value, problem] of cases) {
        const run = await runCli([...base, "--all", "--schedule", value], {
          env: env(),
          dispatcher: api.agent,
        });
        expect(run.code, value).toBe(2);
        expect(run.stderr, value).toContain(problem);
      }
    });
  });

  describe("at a terminal", () => {
    it("shows the preflight summary on stderr, asks, then creates", async () => {
      const check = stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      const create = stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const prompter = scriptedPrompter({ 'Create "Spring launch"': true });
      const run = await runCli([...base, "--all", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(check.body()).toEqual(body);
      expect(create.body()).toEqual(body);
      expect(prompter.asked).toEqual(['Create "Spring launch" as a draft (4 recipients now)?']);
      expect(run.stderr).toMatch(/Audience\s+all contacts: 6 contacts/);
      expect(run.stderr).toMatch(/Recipients\s+4 with consent \(opted_in\) will be messaged/);
      expect(run.stderr).toMatch(/Skipped\s+2: 1 not_set, 1 opted_out/);
      expect(run.stderr).toMatch(/Quota\s+9,998 messages left this month/);
      expect(run.stderr).toContain("│ Hello {{1}}→first_name, our spring collection is here.");
      expect(run.stdout).toMatch(/Status:\s+draft/);
    });

    it("shows the message's footer and buttons under its text, as a phone would", async () => {
      const framed = {
        ...preview,
        template: { ...preview.template, footer: "Reply STOP to opt out", buttons: ["Shop now"] },
      };
      stubRequest(api, "POST", `${path}/preview`, envelope(framed));
      stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const run = await runCli([...base, "--all", "--var", "1=first_name", "--yes"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(
        /│ Hello \{\{1\}\}→first_name, our spring collection is here\.\n\s+│ Reply STOP to opt out\n\s+│ \[ Shop now \]/,
      );
    });

    it("asks for the name, channel, template, language and audience the flags leave out", async () => {
      const check = stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const prompter = scriptedPrompter({
        "Campaign name": "Spring launch",
        "Channel id": channel.id,
        "Template name": "spring_news",
        "Template language": "en_US",
        Audience: "all",
        'Create "Spring launch"': true,
      });
      const run = await runCli(["campaigns", "create", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(check.body()).toEqual(body);
      expect(prompter.asked).toHaveLength(6);
    });

    it("asks for the contact field of each variable of the template when no --var is given", async () => {
      stubRequest(
        api,
        "GET",
        `/api/v1/workspaces/${workspaceId}/templates`,
        listEnvelope([approvedTemplate]),
        { query: { name: "order_update", language: "en_US", per_page: "1" } },
      );
      const check = stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const prompter = scriptedPrompter({
        "Contact field for {{1}}": "first_name",
        "Contact field for {{2}}": "custom.order",
        "Create ": true,
      });
      const run = await runCli(
        [...base.slice(0, 6), "--template", "order_update", "--language", "en_US", "--all"],
        { tty: true, env: env(), dispatcher: api.agent, prompter },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(check.body()).toMatchObject({
        variable_mapping: { "1": "first_name", "2": "custom.order" },
      });
    });

    it("creates nothing when the answer is no", async () => {
      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      const run = await runCli([...base, "--all", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({ "Create ": false }),
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("Cancelled: no campaign was created.");
      expect(run.stdout).toBe("");
    });

    it("says how many consenting contacts lack a mapped value and would fail missing_variable", async () => {
      stubRequest(api, "POST", `${path}/preview`, envelope({ ...preview, missing_variable: 3 }));
      stubRequest(api, "POST", path, envelope(scheduledCampaign), { status: 201 });
      const prompter = scriptedPrompter({ Schedule: true });
      const run = await runCli(
        [...base, "--all", "--var", "1=first_name", "--schedule", "2030-12-01T09:00:00Z"],
        { tty: true, env: { ...env(), NO_COLOR: "1" }, dispatcher: api.agent, prompter },
      );
      expect(run.stderr).toMatch(
        /Recipients\s+4 with consent \(opted_in\): 1 will be messaged, 3 cannot be \(a mapped field is empty: missing_variable\)/,
      );
      expect(prompter.asked).toEqual([
        'Schedule "Spring launch" to message 1 contact at 2030-12-01 09:00 UTC?',
      ]);
      expect(run.stderr).not.toContain("would message no one");

      stubRequest(api, "POST", `${path}/preview`, envelope({ ...preview, missing_variable: 4 }));
      const none = await runCli([...base, "--all", "--var", "1=first_name", "--dry-run"], {
        tty: true,
        env: { ...env(), NO_COLOR: "1" },
        dispatcher: api.agent,
      });
      expect(none.stdout + none.stderr).toContain(
        "No contact with consent has every mapped field: the campaign would message no one.",
      );
    });

    it("asks about the start time of a scheduled campaign; --yes shows the summary but skips the question", async () => {
      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      stubRequest(api, "POST", path, envelope(scheduledCampaign), { status: 201 });
      const prompter = scriptedPrompter({ Schedule: true });
      await runCli(
        [...base, "--all", "--var", "1=first_name", "--schedule", "2030-12-01T09:00:00Z"],
        {
          tty: true,
          env: env(),
          dispatcher: api.agent,
          prompter,
        },
      );
      expect(prompter.asked).toEqual([
        'Schedule "Spring launch" to message 4 contacts at 2030-12-01 09:00 UTC?',
      ]);

      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      stubRequest(api, "POST", path, envelope(draftCampaign), { status: 201 });
      const yes = await runCli([...base, "--all", "--var", "1=first_name", "--yes"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({}),
      });
      expect(yes.code).toBe(0);
      expect(yes.stderr).toContain("will be messaged");
    });

    it("warns when nobody has consent or the month's quota cannot carry the campaign", async () => {
      stubRequest(
        api,
        "POST",
        `${path}/preview`,
        envelope({ ...preview, messages_left_this_month: 3 }),
      );
      const run = await runCli([...base, "--all", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({ Create: false }),
      });
      expect(run.stderr).toContain("launching would be refused (plan_limit_exceeded)");
      stubRequest(api, "POST", `${path}/preview`, envelope({ ...preview, with_consent: 0 }));
      const nobody = await runCli([...base, "--all", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({ Create: false }),
      });
      expect(nobody.stderr).toContain("Nobody in this audience has opted in");
    });

    it("exits 6 with the service's reason when the preview is refused, creating nothing", async () => {
      stubRequest(
        api,
        "POST",
        `${path}/preview`,
        errorBody(
          "template_not_approved",
          "Template 'spring_news' (en_US) is pending, not approved; a campaign can only use an approved template.",
        ),
        { status: 422 },
      );
      const run = await runCli([...base, "--all", "--var", "1=first_name"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({}),
      });
      expect(run.code).toBe(6);
      expect(run.stderr).toContain("(template_not_approved, HTTP 422)");
    });
  });

  it("names the flag of a field the service refuses", async () => {
    stubRequest(
      api,
      "POST",
      path,
      errorBody("validation_failed", "variable_mapping: must map every variable of the template", [
        {
          field: "variable_mapping",
          message: "must map every variable of the template; missing {{2}}",
        },
      ]),
      { status: 422 },
    );
    const run = await runCli([...base, "--all", "--var", "1=first_name"], {
      env: env(),
      dispatcher: api.agent,
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(
      "Hint: With `reseller campaigns create`: variable_mapping is --var n=field.",
    );
  });

  describe("--dry-run", () => {
    it("prints the preview and creates nothing, piped or as JSON", async () => {
      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      const piped = await runCli([...base, "--all", "--var", "1=first_name", "--dry-run"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain("with_consent\t4\n");
      expect(piped.stdout).toContain("messages_left_this_month\t9998\n");
      expect(piped.stderr).toContain("nothing was created");

      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      const json = await runCli(
        [...base, "--all", "--var", "1=first_name", "--dry-run", "--json"],
        {
          env: env(),
          dispatcher: api.agent,
        },
      );
      expect(JSON.parse(json.stdout)).toEqual(preview);
    });

    it("shows the summary on stdout at a terminal, without asking", async () => {
      stubRequest(api, "POST", `${path}/preview`, envelope(preview));
      const run = await runCli([...base, "--all", "--var", "1=first_name", "--dry-run"], {
        tty: true,
        env: env(),
        dispatcher: api.agent,
        prompter: scriptedPrompter({}),
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Hello {{1}}→first_name");
    });

    it("says before anything is created that a button left out of --var sends the template's example", async () => {
      const notice = {
        field: "variable_mapping.button.1",
        message: "not mapped: every message's URL button ends in the template's example 'A-1042'",
      };
      stubRequest(api, "POST", `${path}/preview`, {
        status: "success",
        data: preview,
        meta: { notices: [notice] },
      });
      const run = await runCli([...base, "--all", "--var", "1=first_name", "--dry-run", "--json"], {
        env: env(),
        dispatcher: api.agent,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(preview);
      expect(run.stderr).toContain("--var button.1: not mapped:");
    });
  });
});
