import { campaignStatuses, contactVariableFields } from "../../../contract/vocabulary.js";
import type { GroupSpec } from "../../command-spec.js";
import { channelCommands } from "../channels/commands.js";

const idArgument = { name: "id", description: "the campaign's id (cmp_…)" };
const fields = `${contactVariableFields.join(", ")} or custom.<key>`;

export const campaignCommands: GroupSpec = {
  name: "campaigns",
  summary: "Broadcast campaigns: create, launch, follow their delivery",
  commands: [
    {
      name: "list",
      summary: "List the workspace's campaigns, newest first",
      inWorkspace: true,
      paged: true,
      options: [
        { flags: "--status <status>", description: "only this status", choices: campaignStatuses },
      ],
      examples: [
        "reseller campaigns list",
        "reseller campaigns list --status running --json | jq -r '.[].id'",
        "reseller campaigns list --status completed --all --csv > campaigns.csv",
      ],
      handler: "campaigns/list",
    },
    {
      name: "get",
      summary: "Show a campaign: audience, template, variables, status and why it failed",
      inWorkspace: true,
      arguments: [idArgument],
      examples: ["reseller campaigns get cmp_01JD3F", "reseller campaigns get cmp_01JD3F --json"],
      handler: "campaigns/get",
    },
    {
      name: "create",
      summary: "Create a campaign: a draft to launch, or scheduled with --schedule",
      description: `Sends an approved template to an audience: exactly one of --all, --tag T (repeatable; contacts with any of the tags) or --contacts ID,… . Only contacts who opted in are messaged. --var n=field maps the template's variable {{n}} (header and body share the numbers) to a contact field: ${fields}; --var header.1=field gives a header's {{1}} its own field where it means something else than the body's; every variable needs one (and a --var the template lacks is refused), and --var button.<index>=field fills a URL button ending in {{1}} or a COPY_CODE button (index from 0 among the template's buttons; one left out sends the template's example, as a warning on stderr says, --dry-run included). Without --schedule the campaign is a draft that \`reseller campaigns launch\` starts; with it (ISO 8601 with a time zone, in the future) it starts by itself. At a terminal it first shows a preflight summary (recipients with consent, skipped contacts, messages left this month, the template text) and asks; --yes skips the question. --dry-run shows the summary only and creates nothing. At a terminal a missing --name, --channel, --template, --language or audience is asked for, and without --var the contact field of each of the template's variables.`,
      inWorkspace: true,
      options: [
        { flags: "--name <name>", description: "the campaign's name" },
        { flags: "--channel <id>", description: "channel to send from (ch_…)" },
        { flags: "--template <name>", description: "name of an approved template" },
        { flags: "--language <code>", description: "the template's language, e.g. en_US" },
        { flags: "--all", description: "audience: every contact of the workspace" },
        {
          flags: "--tag <tag>",
          description: "audience: contacts with this tag (repeat for any of several)",
          repeatable: true,
        },
        {
          flags: "--contacts <ids>",
          description: "audience: these contacts, comma-separated ct_… ids",
          repeatable: true,
        },
        {
          flags: "--var <n=field>",
          description: `template variable n (or header.1, the header's own {{1}}; or button.<index>, a URL or COPY_CODE button) from a contact field (${fields}); repeat per variable`,
          repeatable: true,
        },
        {
          flags: "--schedule <iso>",
          description: "start then instead of a draft, e.g. 2026-12-01T09:00:00Z",
        },
        { flags: "-y, --yes", description: "create without asking at a terminal" },
        { flags: "--dry-run", description: "show the preflight summary only; create nothing" },
      ],
      examples: [
        "reseller campaigns create --name 'Spring launch' --channel ch_01JD3F --template spring_news --language en_US --all --var 1=first_name",
        "reseller campaigns create --name 'VIP preview' --channel ch_01JD3F --template vip_offer --language en --tag vip --tag gold --var 1=first_name --var 2=custom.city --schedule 2026-12-01T09:00:00Z --yes",
        "reseller campaigns create --name Test --channel ch_01JD3F --template spring_news --language en_US --contacts ct_01A,ct_01B --var 1=first_name --dry-run",
      ],
      handler: "campaigns/create",
    },
    {
      name: "launch",
      summary: "Launch a draft campaign now (asks first; --yes without a terminal)",
      description:
        "Starts sending a draft at once. At a terminal it names the campaign and its recipients and asks; without a terminal it needs --yes. A campaign that is not a draft is refused (exit 5), as is one the month's message quota cannot carry.",
      inWorkspace: true,
      arguments: [idArgument],
      options: [
        { flags: "-y, --yes", description: "launch without asking (needed without a terminal)" },
      ],
      examples: [
        "reseller campaigns launch cmp_01JD3F",
        "reseller campaigns launch cmp_01JD3F --yes && reseller campaigns stats cmp_01JD3F --watch",
      ],
      handler: "campaigns/launch",
    },
    {
      name: "stats",
      summary: "Delivery statistics: sent, delivered, read, failed (with reasons), skipped",
      description:
        "Shows the campaign's funnel: sent, delivered and read (each with its rate), failures grouped by reason, and contacts skipped for lack of consent. --watch refreshes every 2 seconds until the campaign has ended and its delivery and read reports have settled (every message read, or a poll without news, at most 60 s after the end; redrawn in place on stderr at a terminal), then prints the final figures; it exits 0 only when the campaign completed, and 5 when it failed or was cancelled, or at once when it is a draft or paused (nothing would end it). Ctrl-C stops watching, not the campaign (exit 130). --json prints the service's stats object; with --watch on a campaign that did not complete, the error (error_code campaign_failed with its failure_reason in details, campaign_cancelled, campaign_paused or campaign_not_launched).",
      inWorkspace: true,
      arguments: [idArgument],
      options: [{ flags: "--watch", description: "refresh until the campaign ends" }],
      examples: [
        "reseller campaigns stats cmp_01JD3F",
        "reseller campaigns stats cmp_01JD3F --watch",
        "reseller campaigns stats cmp_01JD3F --watch --json | jq '{sent, failed, failures}'",
      ],
      handler: "campaigns/stats",
    },
    {
      name: "pause",
      summary: "Pause a running or scheduled campaign: nothing more is sent until resumed",
      description:
        "The batch in flight finishes; no further message leaves until `campaigns resume`. Any other status is refused (exit 5).",
      inWorkspace: true,
      arguments: [idArgument],
      examples: ["reseller campaigns pause cmp_01JD3F"],
      handler: "campaigns/pause",
    },
    {
      name: "resume",
      summary: "Resume a paused campaign where it stopped (no one gets a message twice)",
      description:
        "The campaign runs again, or is scheduled again when it never started and its time is still ahead.",
      inWorkspace: true,
      arguments: [idArgument],
      examples: ["reseller campaigns resume cmp_01JD3F"],
      handler: "campaigns/resume",
    },
    {
      name: "cancel",
      summary: "Cancel a campaign that has not ended (asks first; --yes without a terminal)",
      description:
        "From draft, scheduled, running or paused: nothing more is sent, and recipients not yet sent count as cancelled in the stats. A completed, failed or cancelled campaign is refused (exit 5).",
      inWorkspace: true,
      arguments: [idArgument],
      options: [
        { flags: "-y, --yes", description: "cancel without asking (needed without a terminal)" },
      ],
      examples: [
        "reseller campaigns cancel cmp_01JD3F",
        "reseller campaigns cancel cmp_01JD3F --yes",
      ],
      handler: "campaigns/cancel",
    },
  ],
};

/** The groups this feature adds to the command tree: `channels …` and `campaigns …`. */
export const campaignGroups: GroupSpec[] = [channelCommands, campaignCommands];
