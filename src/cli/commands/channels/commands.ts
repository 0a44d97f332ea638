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
      name: "get",
      summary: "Show a channel, with Meta's verified name and quality rating for a cloud number",
      inWorkspace: true,
      arguments: [{ name: "id", description: "the channel's id (ch_…)" }],
      examples: ["reseller channels get ch_01JD3F", "reseller channels get ch_01JD3F --json"],
      handler: "channels/get",
    },
    {
      name: "add",
      summary: "Connect a number: a sandbox number, or a real one through the WhatsApp Cloud API",
      description:
        "Connects a WhatsApp number to the workspace; campaigns name it by the channel id (ch_…) this prints. The sandbox (default) connects any valid E.164 --phone at once. --provider whatsapp_cloud connects a real number: pass the phone number id and WhatsApp Business Account id from Meta's WhatsApp Manager and the access token on standard input (--access-token-stdin; a token on the command line lands in shell history). The service checks the number with Meta, needs RESELLER_SECRET_KEY to store the token encrypted, and never shows the token again. A number already connected is refused (409 channel_exists, exit 5); a cloud number Meta disconnected (its token refused) is connected again, same channel, with a fresh token. At a terminal missing values are asked for.",
      inWorkspace: true,
      options: [
        {
          flags: "--provider <provider>",
          description: "sandbox (default) or whatsapp_cloud",
          choices: ["sandbox", "whatsapp_cloud"],
        },
        {
          flags: "--phone <e164>",
          description: "sandbox: the number to send from, e.g. +4915112340000",
        },
        {
          flags: "--name <name>",
          description:
            "a name for people, e.g. 'Main number' (default: Meta's verified name, or the number)",
        },
        {
          flags: "--phone-number-id <id>",
          description: "whatsapp_cloud: the number's phone number id",
        },
        {
          flags: "--waba-id <id>",
          description: "whatsapp_cloud: the WhatsApp Business Account id",
        },
        {
          flags: "--access-token-stdin",
          description: "whatsapp_cloud: read the access token from standard input",
        },
      ],
      examples: [
        "reseller channels add --phone +4915112340000 --name 'Main number'",
        "reseller channels add --phone +4915112340000 --name Shop -w ws_01JD3F -q",
        "reseller channels add --provider whatsapp_cloud --phone-number-id 106540352242922 --waba-id 102290129340398 --name Shop --access-token-stdin < token.txt",
      ],
      handler: "channels/add",
    },
  ],
};
