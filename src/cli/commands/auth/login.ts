import { ApiError } from "../../../client/api-error.js";
import { redactedUrl } from "../../../contract/redacted-url.js";
import { CurrentTokenResponse } from "../../../contract/tokens.js";
import { baseUrlProblem, baseUrlSource } from "../../base-url.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { booleanOption } from "../../options.js";
import { recordView } from "../../output/view.js";
import { readStdin } from "../../read-stdin.js";
import { tokenFields } from "./token-fields.js";

/** The token typed at a terminal; Enter alone asks again, as every required answer does. */
async function askToken(ctx: Context): Promise<string> {
  for (;;) {
    const token = (await ctx.prompter.password({ message: "API token (rsk_… or wsk_…)" })).trim();
    if (token !== "") return token;
    ctx.info("A token is required.");
  }
}

/** `reseller login`: validates a token with the service, then stores it in the profile. */
export const run: Handler = async (ctx, { options }) => {
  const settings = await ctx.settings();
  let baseUrl = settings.baseUrl.value;
  if (
    settings.baseUrl.source !== "flag" &&
    ctx.canPrompt &&
    !booleanOption(options, "tokenStdin")
  ) {
    baseUrl = await ctx.prompter.input({
      message: "Service base URL",
      default: baseUrl,
      validate: (value) => baseUrlProblem(value.trim()) ?? true,
    });
    baseUrl = baseUrl.trim();
  }
  const problem = baseUrlProblem(baseUrl);
  if (problem) {
    throw usageError(
      `Invalid base URL (from ${baseUrlSource(settings.baseUrl.source)}): ${problem}`,
      "Pass --base-url with the service's address, e.g. --base-url http://127.0.0.1:8420.",
    );
  }
  let token: string | undefined;
  if (booleanOption(options, "tokenStdin")) {
    if (ctx.globals.token !== undefined) {
      throw usageError("Give the token once: --token-stdin or --token, not both.");
    }
    token = (await readStdin(ctx.io.stdin)).trim();
    if (token === "") throw usageError("--token-stdin was given but standard input is empty.");
  } else if (ctx.globals.token?.trim()) {
    // Trimmed as every command trims --token: a value pasted from a file keeps its line break.
    token = ctx.globals.token.trim();
  } else if (settings.token.source === "env" && settings.token.value?.trim()) {
    // RESELLER_TOKEN, as every command takes it (a CI secret): after the flags, before asking.
    token = settings.token.value.trim();
  } else if (ctx.canPrompt) {
    token = await askToken(ctx);
  }
  if (!token) {
    throw usageError(
      "Missing token.",
      "Pass --token-stdin and pipe the token in, or set RESELLER_TOKEN (--token works too, but lands in shell history).",
    );
  }

  const client = await ctx.client({ baseUrl, token });
  const response = await client
    .get("/api/v1/tokens/current", CurrentTokenResponse)
    .catch((error: unknown) => {
      // "Run `reseller login`" is no advice to someone running it.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      throw error.withHint(
        "Check the token: a reseller token (rsk_…) comes from `reseller tokens create` or your operator (`reseller admin resellers create`), a workspace token (wsk_…) from `reseller workspaces tokens create`. Nothing was saved.",
      );
    });

  const store = await ctx.profiles();
  const profile = settings.profile.value;
  const wasActive = store.activeName;
  const current = response.body.data;
  // A workspace token reaches its own workspace only: a default left from an earlier token
  // would make every later command a 404.
  const ownWorkspace = current.kind === "workspace" ? current.workspace_id : null;
  const previousWorkspace = store.get(profile)?.workspace;
  await store.update(profile, {
    base_url: baseUrl,
    token,
    ...(ownWorkspace ? { workspace: ownWorkspace } : {}),
  });
  await store.use(profile);
  // Later commands now use this profile: said, since it may not be the one they used before.
  const switched =
    wasActive !== profile ? ` It is now the active profile (was '${wasActive}').` : "";
  const workspaceNote =
    ownWorkspace && previousWorkspace && previousWorkspace !== ownWorkspace
      ? ` Its default workspace is now the token's own, ${ownWorkspace} (was ${previousWorkspace}).`
      : "";
  return {
    data: response.raw.data,
    view: recordView(current, tokenFields),
    message: `Logged in to ${redactedUrl(baseUrl)} with ${current.kind} token ${current.id}; saved to profile '${profile}' (${store.path}).${switched}${workspaceNote}`,
  };
};
