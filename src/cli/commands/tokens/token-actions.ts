import {
  type CreatedToken,
  CreatedTokenResponse,
  CreateTokenBody,
  type Token,
  TokenListResponse,
  TokenResponse,
} from "../../../contract/tokens.js";
import { scopes as scopeNames } from "../../../contract/vocabulary.js";
import { usageError } from "../../cli-error.js";
import type { CommandResult, HandlerInput } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { booleanOption, listOption, requiredString, stringOption } from "../../options.js";
import { when } from "../../output/time.js";
import type { Column } from "../../output/view.js";
import { recordView, tableView } from "../../output/view.js";
import { fetchList } from "../../paged-list.js";
import { askForMissing, confirmOrYes } from "../../prompts.js";

/** Whose tokens a command manages: the reseller's own, or one workspace's. */
export interface TokenOwner {
  /** The collection's path, e.g. `/api/v1/tokens` or `/api/v1/workspaces/<id>/tokens`. */
  path: string;
  /** What its tokens are called: `reseller token` or `workspace token`. */
  noun: string;
  /** Whose they are, for messages: empty, or ` of workspace ws_…`. */
  of: string;
}

/** The reseller account's own tokens. */
export const resellerTokens: TokenOwner = {
  path: "/api/v1/tokens",
  noun: "reseller token",
  of: "",
};

/** The tokens of the workspace in force (-w, RESELLER_WORKSPACE, the profile's default). */
export async function workspaceTokens(ctx: Context): Promise<TokenOwner> {
  const id = await ctx.workspaceId();
  return {
    path: `/api/v1/workspaces/${encodeURIComponent(id)}/tokens`,
    noun: "workspace token",
    of: ` of workspace ${id}`,
  };
}

function day(iso: string | null): string {
  return iso === null ? "—" : iso.slice(0, 10);
}

/** Columns of a token list; never a secret, only its hint. */
const tokenColumns: Column<Token>[] = [
  { header: "Id", key: "id", value: (t) => t.id },
  { header: "Name", key: "name", value: (t) => t.name, display: (t, paint) => paint.bold(t.name) },
  { header: "Scopes", key: "scopes", value: (t) => t.scopes.join(" ") },
  { header: "Token", key: "token_hint", value: (t) => t.token_hint },
  {
    header: "Created",
    key: "created_at",
    value: (t) => t.created_at,
    display: (t) => day(t.created_at),
  },
  {
    header: "Last used",
    key: "last_used_at",
    value: (t) => t.last_used_at,
    display: (t) => day(t.last_used_at),
  },
  {
    header: "Expires",
    key: "expires_at",
    value: (t) => t.expires_at,
    display: (t) => (t.expires_at ? day(t.expires_at) : "never"),
  },
];

/** How one token reads; `workspace_id` only matters for workspace tokens. */
const tokenFields: Column<Token>[] = [
  { header: "Token id", key: "id", value: (t) => t.id },
  { header: "Name", key: "name", value: (t) => t.name },
  { header: "Kind", key: "kind", value: (t) => t.kind },
  {
    header: "Workspace",
    key: "workspace_id",
    value: (t) => t.workspace_id,
    display: (t) => t.workspace_id ?? "—",
  },
  { header: "Scopes", key: "scopes", value: (t) => t.scopes.join(" ") },
  // At a terminal in the user's time zone, as every record's times; piped, the service's UTC.
  {
    header: "Created",
    key: "created_at",
    value: (t) => t.created_at,
    display: (t) => when(t.created_at),
  },
  {
    header: "Expires",
    key: "expires_at",
    value: (t) => t.expires_at,
    display: (t) => (t.expires_at ? when(t.expires_at) : "never"),
  },
  {
    header: "Revoked",
    key: "revoked_at",
    value: (t) => t.revoked_at,
    display: (t) => when(t.revoked_at),
  },
];

/** `… tokens list`: one page, or every page with --all. */
export async function listTokens(
  ctx: Context,
  owner: TokenOwner,
  { options }: HandlerInput,
): Promise<CommandResult> {
  const client = await ctx.client();
  const list = await fetchList(client, owner.path, TokenListResponse, options, {}, "tokens");
  return {
    data: list.data,
    view: tableView(list.rows, tokenColumns, { empty: "No tokens (revoked ones are not listed)." }),
    message: list.message,
  };
}

/**
 * `… tokens create --name N --scope S…`: the secret is printed this once (in `token` with
 * --json; on stderr with --quiet, whose stdout is the id), with a note to store it now.
 */
export async function createToken(
  ctx: Context,
  owner: TokenOwner,
  input: HandlerInput,
): Promise<CommandResult & { replayed: boolean }> {
  const named = await askForMissing(ctx, input.options, [
    { key: "name", message: "Token name (what uses it, e.g. pricing page)" },
  ]);
  const options =
    listOption(named, "scope").length > 0 || !ctx.canPrompt
      ? named
      : { ...named, scope: await askScopes(ctx) };
  const name = requiredString(options, "name");
  const scopes = listOption(options, "scope");
  if (scopes.length === 0) {
    throw usageError(
      "Missing --scope: name at least one scope to grant.",
      "Repeat --scope for several, e.g. --scope plans:read.",
    );
  }
  const expiresAt = stringOption(options, "expiresAt");
  // The service's own rule, before any request: a typo is a usage error (exit 2), not a 422.
  const expiry = CreateTokenBody.shape.expires_at.safeParse(expiresAt);
  if (!expiry.success) {
    throw usageError(
      `--expires-at expects an ISO 8601 time with its offset; got '${expiresAt}'.`,
      "For example --expires-at 2030-01-31T23:59:59Z.",
    );
  }
  // A time already past: the service would refuse it (422), and it could be said now.
  if (expiresAt !== undefined && Date.parse(expiresAt) <= ctx.now().getTime()) {
    throw usageError(
      `--expires-at must be in the future; got '${expiresAt}'.`,
      "For example --expires-at 2030-01-31T23:59:59Z.",
    );
  }
  const body = { name, scopes, ...(expiresAt ? { expires_at: expiresAt } : {}) } as CreateTokenBody;
  const client = await ctx.client();
  const response = await client.call("POST", owner.path, CreatedTokenResponse, { body });
  const created = response.body.data;
  const view = recordView<CreatedToken>(created, [
    ...tokenFields.filter((f) => f.key !== "revoked_at"),
    {
      header: "Token",
      key: "token",
      value: (t) => t.token,
      display: (t, paint) => paint.bold(t.token),
    },
  ]);
  // The answer of an earlier run with this idempotency key, the secret with it: not "once".
  const replayed = response.headers["idempotent-replayed"] === "true";
  return {
    replayed,
    data: response.raw.data,
    view,
    // --quiet prints the id only; the secret goes to stderr.
    secrets: [`Token ${created.id} (${secretShown(replayed)}): ${created.token}`],
    message: replayed
      ? `${owner.noun[0]?.toUpperCase()}${owner.noun.slice(1)} ${created.id}${owner.of} was created by an earlier run with this idempotency key; its answer is shown again. Store the token now.`
      : `Created ${owner.noun} ${created.id}${owner.of}. Store the token now: it is shown only this once (the service keeps only its hash).`,
  };
}

/** How often a token's secret is shown: once, or again for an answer replayed under its key. */
export function secretShown(replayed: boolean): string {
  return replayed ? "as the earlier run was shown it" : "shown only this once";
}

/** `… tokens revoke <token_id>`: asks at a terminal, needs --yes without one. */
export async function revokeToken(
  ctx: Context,
  owner: TokenOwner,
  { args, options }: HandlerInput,
): Promise<CommandResult> {
  const tokenId = args[0] ?? "";
  const confirmed = await confirmOrYes(
    ctx,
    booleanOption(options, "yes"),
    `Revoke ${owner.noun} ${tokenId}${owner.of}?`,
  );
  if (!confirmed) return { message: `Cancelled: ${tokenId} was not revoked.` };
  const client = await ctx.client();
  const response = await client.call(
    "DELETE",
    `${owner.path}/${encodeURIComponent(tokenId)}`,
    TokenResponse,
  );
  const token = response.body.data;
  return {
    data: response.raw.data,
    view: recordView(token, tokenFields),
    message: `Revoked ${owner.noun} ${token.id} (${token.name})${owner.of}; it answers 401 from now on.`,
  };
}

/** At a terminal, the scopes a new token gets when no --scope was given. */
async function askScopes(ctx: Context): Promise<string[]> {
  const answer = await ctx.prompter.input({
    message: `Scopes, separated by commas (${scopeNames.join(", ")})`,
    validate: (v) => {
      const given = v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      if (given.length === 0) return "Name at least one scope.";
      const unknown = given.filter((s) => !(scopeNames as readonly string[]).includes(s));
      return unknown.length === 0 ? true : `Not a scope: ${unknown.join(", ")}.`;
    },
  });
  return answer
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}
