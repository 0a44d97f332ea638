import type { CommandSpec } from "../../command-spec.js";

/** `reseller api <METHOD> <path>`: a raw request with the credentials in force. */
export const apiCommand: CommandSpec = {
  name: "api",
  summary: "Send a raw request to the API with the current credentials and print the answer",
  description:
    'Sends one request with the base URL and token in force (as `auth status` shows them) and prints the response body: indented JSON at a terminal, one compact line when piped (for jq). A path without a leading / is taken under /api/v1/. An answer other than 2xx exits with the code any command would (3 auth, 4 not found, 6 refused, …). POST requests carry an Idempotency-Key like every other command. The raw tool prints a success\'s whole body, envelope included, with or without --json (--quiet: the ids in it); an error answer is told as every command tells one (its message on stderr; with --json, `{"error": …}` on stdout); --csv is refused.',
  arguments: [
    {
      name: "method",
      description: "HTTP method",
      choices: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    },
    { name: "path", description: "e.g. /api/v1/plans or workspaces?status=trial" },
  ],
  options: [
    {
      flags: "--data <json>",
      description: "request body: JSON text, @file to read it from a file, or - for standard input",
    },
    {
      flags: "--paginate",
      description:
        "follow meta.pagination.next_cursor to the last page and print every item of data as one array",
    },
  ],
  examples: [
    "reseller api GET /api/v1/plans",
    "reseller api GET workspaces --paginate | jq -r '.[].id'",
    `reseller api POST workspaces --data '{"name":"Acme","contact_email":"owner@acme.test"}'`,
    "reseller api PATCH workspaces/ws_01JD3F --data @patch.json",
    'echo \'{"status":"suspended"}\' | reseller api PATCH workspaces/ws_01JD3F --data -',
  ],
  handler: "api/api",
};
