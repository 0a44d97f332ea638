import { templateRejectionReasons } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";

/** `reseller sandbox …`: the local service's simulated messaging operator, for tests and demos. */
export const sandboxCommands: GroupSpec = {
  name: "sandbox",
  summary: "Act as the local service's sandbox messaging operator (tests and demos)",
  commands: [
    {
      name: "templates",
      summary: "Decide template reviews as the operator",
      commands: [
        {
          name: "review",
          summary: "Approve, reject or pause a template at once (local service only)",
          description:
            "Decides a review explicitly instead of waiting for the sandbox's automatic review: --approve a pending or paused template, --reject REASON a pending one, --pause an approved one. Works only against a service running the sandbox operator (`reseller serve`). The template is found by its id; -w, when given, must be its workspace (exit 4 otherwise).",
          arguments: [{ name: "id", description: "the template's id (tpl_…)" }],
          inWorkspace: true,
          options: [
            { flags: "--approve", description: "approve the template" },
            {
              flags: "--reject <reason>",
              description: "reject it with one of the operator's reasons",
              choices: templateRejectionReasons,
            },
            { flags: "--detail <text>", description: "with --reject: an explanation to record" },
            { flags: "--pause", description: "pause an approved template" },
          ],
          examples: [
            "reseller sandbox templates review tpl_01JD3F --approve",
            "reseller sandbox templates review tpl_01JD3F --reject INCORRECT_CATEGORY --detail 'Promotional wording'",
            "reseller sandbox templates review tpl_01JD3F --pause --json",
            "reseller sandbox templates review tpl_01JD3F --approve -w ws_01JD3F",
          ],
          handler: "sandbox/templates-review",
        },
      ],
    },
    {
      name: "inbound",
      summary: "Simulate a contact's reply: STOP or UNSUBSCRIBE opts out, START opts in",
      description:
        "Delivers a message from a contact's number to the workspace as the sandbox operator would report it (local service only). STOP or UNSUBSCRIBE (any case, punctuation around the word ignored: 'Stop.' counts) opts the contact out and records opted_out_at; START (alone, any case) opts it back in; other text changes nothing. A number that is no contact of the workspace changes nothing either.",
      inWorkspace: true,
      options: [
        { flags: "--from <e164>", description: "the contact's number, e.g. +4915112345671" },
        { flags: "--text <text>", description: "the message text, e.g. STOP" },
      ],
      examples: [
        "reseller sandbox inbound --from +4915112345671 --text STOP",
        "reseller sandbox inbound --from +4915112345671 --text START -w ws_01JD3F --json",
      ],
      handler: "sandbox/inbound",
    },
  ],
};
