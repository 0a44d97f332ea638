import { templateCategories, templateStatuses } from "../../../contract/vocabulary.js";
import type { GroupSpec, OptionSpec } from "../../command-spec.js";
import { sandboxCommands } from "../sandbox/commands.js";

const idArgument = { name: "id", description: "the template's id (tpl_…)" };

const waitOptions: OptionSpec[] = [
  {
    flags: "--wait",
    description:
      "wait for the operator's review; exit 0 approved, 6 rejected, 5 still pending, 130 on Ctrl-C (the review goes on)",
  },
  {
    flags: "--timeout <seconds>",
    // No commander default: a --timeout given without --wait is refused (checkWaitFlags).
    description: "with --wait: give up after this many seconds (default: 600)",
  },
];

export const templateCommands: GroupSpec = {
  name: "templates",
  summary: "Message templates: check offline, submit for review, list, delete",
  commands: [
    {
      name: "list",
      summary: "List the workspace's templates, newest first",
      inWorkspace: true,
      paged: true,
      options: [
        { flags: "--status <status>", description: "only this status", choices: templateStatuses },
        {
          flags: "--category <category>",
          description: "only this category",
          choices: templateCategories,
        },
        { flags: "--name <name>", description: "only templates of exactly this name" },
        { flags: "--language <code>", description: "only this language, e.g. en_US" },
      ],
      examples: [
        "reseller templates list",
        "reseller templates list --status rejected --json | jq '.[] | {name, rejection_reason}'",
        "reseller templates list --name order_update -w ws_01JD3F --all --csv",
      ],
      handler: "templates/list",
    },
    {
      name: "get",
      summary: "Show a template, its review outcome and a preview",
      inWorkspace: true,
      arguments: [idArgument],
      examples: ["reseller templates get tpl_01JD3F", "reseller templates get tpl_01JD3F --json"],
      handler: "templates/get",
    },
    {
      name: "create",
      summary: "Check a template against WhatsApp's rules, then submit it for review",
      description:
        "Takes a JSON file (--file, `-` for stdin; WhatsApp Cloud API shapes) or flags for a simple template. Every rule is checked locally first: any problem exits 2 (an invalid value caught before any request) with each one listed and nothing sent, as does a file that is not JSON. At a terminal it shows a preview on stderr. --draft stores a draft to submit later. Button SPECs: QUICK_REPLY:<text>, URL:<text>:<url>[|<example>] (the example fills a trailing {{1}}), PHONE_NUMBER:<text>:<+E164>, COPY_CODE:<code>, OTP:<COPY_CODE|ONE_TAP|ZERO_TAP>[:<text>]. Texts may not contain ':' except a URL's. At a terminal, without --file, a missing --name, --category, --language or --body is asked for (for an authentication template, its copy-code button's text instead of a body), and so is an example of each variable of the body when no --example gives them; a header, footer or buttons come from flags or the file.",
      inWorkspace: true,
      options: [
        { flags: "--file <file>", description: "the template as JSON (- for stdin)" },
        { flags: "--name <name>", description: "lowercase letters, digits, underscores" },
        {
          flags: "--category <category>",
          description: "template category",
          choices: templateCategories,
        },
        { flags: "--language <code>", description: "language code, e.g. en or pt_BR" },
        { flags: "--body <text>", description: "body text; variables are {{1}}, {{2}}, …" },
        {
          flags: "--example <value>",
          description: "example value of the next body variable (repeat in order)",
          repeatable: true,
        },
        { flags: "--header <text>", description: "a text header (at most 60 characters)" },
        { flags: "--header-example <value>", description: "example value of the header's {{1}}" },
        { flags: "--footer <text>", description: "footer text (at most 60 characters)" },
        {
          flags: "--button <spec>",
          description: "a button (repeatable; see above)",
          repeatable: true,
        },
        { flags: "--draft", description: "store as a draft instead of submitting" },
        ...waitOptions,
      ],
      examples: [
        "reseller templates create --file order_update.json --wait",
        "reseller templates create --name order_update --category utility --language en_US --body 'Hi {{1}}, order {{2}} has shipped.' --example Ada --example A-1042 --button 'URL:Track order:https://shop.example/o/{{1}}|A-1042'",
        "reseller templates create --name spring_sale --category marketing --language en --body 'Our spring sale starts today!' --button QUICK_REPLY:Interested --button 'QUICK_REPLY:Stop promotions' --draft",
      ],
      handler: "templates/create",
    },
    {
      name: "submit",
      summary: "Submit a draft template for review",
      inWorkspace: true,
      arguments: [idArgument],
      options: waitOptions,
      examples: [
        "reseller templates submit tpl_01JD3F",
        "reseller templates submit tpl_01JD3F --wait --timeout 120",
      ],
      handler: "templates/submit",
    },
    {
      name: "delete",
      summary: "Delete a draft or rejected template (asks first; --yes without a terminal)",
      inWorkspace: true,
      arguments: [idArgument],
      options: [
        { flags: "-y, --yes", description: "delete without asking (needed without a terminal)" },
      ],
      examples: [
        "reseller templates delete tpl_01JD3F",
        "reseller templates delete tpl_01JD3F --yes",
      ],
      handler: "templates/delete",
    },
    {
      name: "lint",
      summary: "Check a template file against WhatsApp's rules offline",
      description:
        "Checks a JSON template file (- for stdin) with the same rules the service applies, without a request. Exit 0 when valid, saying (and in --json `review`) what the review's content rules would still reject: a URL shortener, a request for secrets, marketing wording in a utility template (docs/sandbox.md); otherwise every problem is listed with its field and rule, and the exit code is 2 (an invalid value caught before any request, as templates create's own check); with --json, as the details of the error (error_code validation_failed, what the service would answer). A file that cannot be read or is not JSON is a usage error (2).",
      arguments: [
        { name: "file", description: "the template as JSON (- for stdin)", required: false },
      ],
      options: [{ flags: "--file <file>", description: "the file, as templates create takes it" }],
      examples: [
        "reseller templates lint order_update.json",
        "reseller templates lint order_update.json --json | jq '.error.details[]?.field'",
        'for f in templates/*.json; do reseller templates lint "$f" || exit 1; done',
      ],
      handler: "templates/lint",
    },
  ],
};

/** The groups this feature adds to the command tree. */
export const templateGroups: GroupSpec[] = [templateCommands, sandboxCommands];
