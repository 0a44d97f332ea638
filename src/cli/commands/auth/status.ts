import { ApiError } from "../../../client/api-error.js";
import { redactedUrl } from "../../../contract/redacted-url.js";
import { CurrentTokenResponse, type Token } from "../../../contract/tokens.js";
import { type ExitKind, exitCodes } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { recordView } from "../../output/view.js";
import { exitKindOf } from "../../report-error.js";
import { maskToken, type Sourced, tokenWorkspaceApplies } from "../../settings.js";

const sourceNames = {
  flag: "flag",
  env: "environment",
  profile: "profile",
  default: "default",
  none: "not set",
  token: "the token's own",
} as const;

function from(setting: Sourced<string | undefined>): string {
  return sourceNames[setting.source];
}

/** `reseller auth status`: which settings won, and whether the token works. */
export const run: Handler = async (ctx) => {
  const settings = await ctx.settings();
  const store = await ctx.profiles();
  const token = settings.token.value;
  let current: Token | null = null;
  const { profile } = settings;
  const missingProfile =
    (profile.source === "flag" || profile.source === "env") && !store.get(profile.value);
  let problem: string | null = token
    ? null
    : missingProfile
      ? `no profile named '${profile.value}' (from ${profile.source === "flag" ? "--profile" : "RESELLER_PROFILE"}): create it with \`reseller login --profile ${profile.value}\``
      : "no token: run `reseller login`";
  // Why the token could not be confirmed, as an exit code: 3 unless the check itself failed
  // for another reason (the service unreachable is 8, as for any command).
  // A --profile or RESELLER_PROFILE naming no profile is an invalid value, exit 2 as in every
  // other command; no token at all is a missing login (3).
  let failure: ExitKind = !token && missingProfile ? "usage" : "auth";
  let errorCode = failure === "usage" ? "usage" : "unauthenticated";
  let refusal: ApiError | null = null;
  if (token) {
    try {
      current = (await (await ctx.client()).get("/api/v1/tokens/current", CurrentTokenResponse))
        .body.data;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      refusal = error;
      problem = error.message;
      failure = exitKindOf(error);
      errorCode = error.errorCode ?? error.kind;
    }
  }
  // The workspace commands will use: a workspace token's own where it applies.
  const workspace: Sourced<string | undefined> =
    current?.kind === "workspace" && current.workspace_id && tokenWorkspaceApplies(settings)
      ? { value: current.workspace_id, source: "token" }
      : settings.workspace;
  const status = {
    profile: settings.profile.value,
    profile_source: settings.profile.source,
    base_url: redactedUrl(settings.baseUrl.value),
    base_url_source: settings.baseUrl.source,
    token: token ? maskToken(token) : null,
    token_source: settings.token.source,
    workspace: workspace.value ?? null,
    workspace_source: workspace.source,
    config_file: store.path,
    valid: current !== null,
    problem,
    token_info: current,
  };
  // Piped (and CSV), each value is followed by where it came from, as in --json: a script
  // checking which token won reads `token_source`, not a label meant for people.
  const source = (key: string, setting: Sourced<string | undefined>) =>
    ctx.output === "table" ? [] : [{ header: key, key, value: () => setting.source }];
  return {
    data: status,
    view: recordView(
      status,
      [
        {
          header: "Profile",
          key: "profile",
          value: (s) => s.profile,
          display: (s) => `${s.profile} (${from(settings.profile)})`,
        },
        ...source("profile_source", settings.profile),
        {
          header: "Base URL",
          key: "base_url",
          value: (s) => s.base_url,
          display: (s) => `${s.base_url} (${from(settings.baseUrl)})`,
        },
        ...source("base_url_source", settings.baseUrl),
        {
          header: "Token",
          key: "token",
          value: (s) => s.token,
          display: (s) => `${s.token ?? "—"} (${from(settings.token)})`,
        },
        ...source("token_source", settings.token),
        {
          header: "Workspace",
          key: "workspace",
          value: (s) => s.workspace,
          display: (s) => `${s.workspace ?? "—"} (${from(workspace)})`,
        },
        ...source("workspace_source", workspace),
        {
          header: "Status",
          key: "valid",
          value: (s) => s.valid,
          display: (s, paint) =>
            s.token_info
              ? paint.good(
                  `valid ${s.token_info.kind} token ${s.token_info.id}; scopes: ${s.token_info.scopes.join(" ")}`,
                )
              : paint.bad(s.problem ?? "invalid"),
        },
        ...(ctx.output === "table"
          ? []
          : [{ header: "problem", key: "problem", value: (s: typeof status) => s.problem }]),
        { header: "Config file", key: "config_file", value: (s) => s.config_file },
      ],
      // --quiet: the id of the token in force, as `tokens list` names it.
      current ? [current.id] : [],
    ),
    exitCode: current ? 0 : exitCodes[failure].code,
    errorCode,
    // The service's answer, as --json prints any failed request's (status, details, request id).
    ...(refusal === null
      ? {}
      : { status: refusal.status || null, details: refusal.details, requestId: refusal.requestId }),
    // With --json a failure prints the error alone, not the status: its details say which
    // settings were used and where each came from, which is what a failing script needs.
    ...(current === null && ctx.output === "json"
      ? {
          details: [
            ...(refusal?.details ?? []),
            { field: "profile", message: `${status.profile} (${from(settings.profile)})` },
            { field: "base_url", message: `${status.base_url} (${from(settings.baseUrl)})` },
            { field: "token", message: `${status.token ?? "none"} (${from(settings.token)})` },
            {
              field: "workspace",
              message: `${status.workspace ?? "none"} (${from(workspace)})`,
            },
          ],
        }
      : {}),
    // An exit other than 0 says why on stderr (and in --json's error), whatever the output mode.
    ...(problem === null ? {} : { message: `Token not confirmed: ${problem}` }),
  };
};
