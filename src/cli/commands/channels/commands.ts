import type { GroupSpec } from "../../command-spec.js";

/** `reseller channels …`: the numbers a workspace sends campaigns from. */
export const channelCommands: GroupSpec = {
  name: "channels",
  summary: "Connected numbers (channels) a workspace sends campaigns from",
  commands: [
    {
      name: "list",
      summary: "List the workspace's channels, newest first",
      inWorkspace: true,
      paged: true,
      examples: [
        "reseller channels list",
        "reseller channels list -w ws_01JD3F --json | jq -r '.[] | select(.status == \"connected\") | .id'",
      ],
      handler: "channels/list",
    },
    {
      name: "add",
      summary: "Connect a number to the workspace (the local sandbox connects any valid number)",
      description:
        "Connects a WhatsApp number in E.164 form to the workspace; campaigns name it by the channel id (ch_…) this prints. The local service's sandbox operator connects any valid number at once; a number already connected is refused (exit 6). At a terminal a missing --phone or --name is asked for.",
      inWorkspace: true,
      options: [
        { flags: "--phone <e164>", description: "the number to send from, e.g. +4915112340000" },
        { flags: "--name <name>", description: "a name for people, e.g. 'Main number'" },
      ],
      examples: [
        "reseller channels add --phone +4915112340000 --name 'Main number'",
        "reseller channels add --phone +4915112340000 --name Shop -w ws_01JD3F -q",
      ],
      handler: "channels/add",
    },
  ],
};
