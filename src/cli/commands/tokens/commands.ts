import { scopes } from "../../../contract/vocabulary.js";
import type { CommandSpec, GroupSpec, OptionSpec } from "../../command-spec.js";

const createOptions: OptionSpec[] = [
  { flags: "--name <name>", description: "what the token is for, e.g. 'pricing page'" },
  {
    flags: "--scope <scope>",
    description: "a scope to grant (repeat for several); only scopes your own token holds",
    choices: scopes,
    repeatable: true,
  },
  {
    flags: "--expires-at <time>",
    description:
      "when the token stops working, ISO 8601, e.g. 2030-01-31T23:59:59Z (default: your own token's expiry; never if it has none)",
  },
];

const yesOption: OptionSpec = {
  flags: "-y, --yes",
  description: "revoke without asking (needed without a terminal)",
};

/**
 * The list/create/revoke verbs of a token group. Reseller tokens live at the top level
 * (`reseller tokens …`), workspace tokens under `reseller workspaces tokens …` with `-w`.
 */
function tokenVerbs(kind: "reseller" | "workspace"): CommandSpec[] {
  const prefix = kind === "reseller" ? "reseller tokens" : "reseller workspaces tokens";
  const handler = kind === "reseller" ? "tokens/" : "workspaces/tokens-";
  const inWorkspace = kind === "workspace";
  const what = kind === "reseller" ? "reseller tokens" : "the workspace's tokens";
  return [
    {
      name: "list",
      summary: `List ${what} that are not revoked (never their secrets)`,
      inWorkspace,
      paged: true,
      examples:
        kind === "reseller"
          ? [`${prefix} list`, `${prefix} list --all --json`]
          : [`${prefix} list -w ws_01JD3F`, `${prefix} list --quiet`],
      handler: `${handler}list`,
    },
    {
      name: "create",
      summary:
        kind === "reseller"
          ? "Create another reseller token (rsk_…); the secret is shown only once"
          : "Create a workspace token (wsk_…), e.g. plans:read for a pricing page; the secret is shown only once",
      description:
        "Prints the new token's secret once: the service keeps only its hash. With --json the output includes `token`; with --quiet the id goes to stdout and the secret to stderr (`--json | jq -r .token` captures it). At a terminal a missing --name or --scope is asked for.",
      inWorkspace,
      options: createOptions,
      examples:
        kind === "reseller"
          ? [
              `${prefix} create --name ci --scope workspaces:read --scope workspaces:write`,
              `${prefix} create --name ci --scope workspaces:read --json | jq -r .token`,
              `${prefix} create --name contractor --scope contacts:read --expires-at 2030-01-31T23:59:59Z`,
            ]
          : [
              `${prefix} create -w ws_01JD3F --name "pricing page" --scope plans:read`,
              `${prefix} create --name site --scope plans:read --json | jq -r .token > token.txt`,
            ],
      handler: `${handler}create`,
    },
    {
      name: "revoke",
      summary: `Revoke a token: it answers 401 from then on (asks first; --yes without a terminal)`,
      inWorkspace,
      arguments: [{ name: "token_id", description: "the token's id (tok_…)" }],
      options: [yesOption],
      examples:
        kind === "reseller"
          ? [`${prefix} revoke tok_01JD3G`, `${prefix} revoke tok_01JD3G --yes`]
          : [`${prefix} revoke tok_01JD3G -w ws_01JD3F --yes`],
      handler: `${handler}revoke`,
    },
  ];
}

/** `reseller tokens …`: the reseller account's own API tokens. */
export const tokenCommands: GroupSpec = {
  name: "tokens",
  summary: "Manage the reseller account's API tokens (rsk_…)",
  commands: tokenVerbs("reseller"),
};

/** `reseller workspaces tokens …`: tokens that reach one workspace only. */
export const workspaceTokenCommands: GroupSpec = {
  name: "tokens",
  summary: "Manage a workspace's API tokens (wsk_…), e.g. for a pricing page",
  commands: tokenVerbs("workspace"),
};
