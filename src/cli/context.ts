import type { Dispatcher } from "undici";
import type { ApiClient } from "../client/api-client.js";
import { idempotencyKeySequence, longestIdempotencyKey } from "../client/idempotency-keys.js";
import { redactedUrl } from "../contract/redacted-url.js";
import { baseUrlProblem, baseUrlSource } from "./base-url.js";
import { brokenConfigCode, CliError, usageError } from "./cli-error.js";
import type { Env } from "./env-vars.js";
import type { Io } from "./io.js";
import type { ModuleImporter } from "./module-loader.js";
import type { OutputMode } from "./output/render.js";
import { terminalText } from "./output/terminal-text.js";
import type { ProfileStore } from "./profile-store.js";
import { inquirerPrompter, type Prompter } from "./prompts.js";
import {
  defaultProfileName,
  maskToken,
  noSuchProfile,
  resolveProfileName,
  resolveSettings,
  type Settings,
  tokenWorkspaceApplies,
} from "./settings.js";
import { isTokenText } from "./token-text.js";
import { cliVersion } from "./version.js";

/** Options every command understands (declared on the root program). */
export interface GlobalOptions {
  baseUrl?: string;
  token?: string;
  profile?: string;
  workspace?: string;
  json?: boolean;
  csv?: boolean;
  quiet?: boolean;
  color?: boolean;
  debug?: boolean;
  idempotencyKey?: string;
}

/** What `main` is given: the real process, or fakes in tests. */
export interface MainDeps {
  io: Io;
  env: Env;
  /** Replaces the HTTP agent (tests use undici's MockAgent). */
  dispatcher?: Dispatcher;
  prompter?: Prompter;
  /** Replaces waiting (retries, polling) in tests. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  /** Imports CLI modules lazily (bin/ hands in one that works outside the code-cached bundle). */
  importModule?: ModuleImporter;
  /**
   * Loads what runs a parsed command (bin/ hands in the code-cached run bundle); without it the
   * ESM modules are imported.
   */
  loadRunner?: () => Runner;
}

/** The modules a command needs once parsed: kept out of the start-up bundle that `--help` loads. */
export interface Runner {
  runCommand: typeof import("./run-command.js").runCommand;
  reportError: typeof import("./report-error.js").reportError;
}

/** Everything a handler may use; handlers touch no globals. */
export interface Context {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  /** stdout is a terminal: tables and colour rather than tab-separated text. */
  isTTY: boolean;
  /** Questions may be asked: stdin and stderr are terminals and CI is not set. */
  canPrompt: boolean;
  color: boolean;
  output: OutputMode;
  prompter: Prompter;
  /** The HTTP agent tests hand in (undici's MockAgent); undefined: each sender makes its own. */
  dispatcher: Dispatcher | undefined;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** A line for people on stderr (progress, notes); never data. */
  info(message: string): void;
  profiles(): Promise<ProfileStore>;
  settings(): Promise<Settings>;
  /**
   * The API client for the resolved base URL and token (or the ones given, as `login` does);
   * a usage error pointing at `reseller login` when there is no token.
   */
  client(overrides?: {
    baseUrl?: string;
    token?: string;
    /** The command stores into the named profile (creating it), so it need not exist yet. */
    profileMayBeNew?: boolean;
  }): Promise<ApiClient>;
  /** The workspace a command works in: -w, RESELLER_WORKSPACE, a workspace token's own, the profile's. */
  workspaceId(): Promise<string>;
  /**
   * ` -w <id>` for a follow-up command the output suggests, when -w chose the workspace (the
   * next command, run as printed, would otherwise work in another); "" otherwise.
   */
  workspaceArg(): Promise<string>;
}

/**
 * Colour per NO_COLOR, FORCE_COLOR and --no-color, otherwise when stdout is a terminal that
 * shows colour: not in CI (cli-contract.md: scripts and CI get none) nor on a dumb terminal.
 */
export function wantsColor(globals: GlobalOptions, env: Env, isTTY: boolean): boolean {
  if (globals.color === false) return false;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  if (env.CI !== undefined || env.TERM === "dumb") return false;
  return isTTY;
}

function outputMode(globals: GlobalOptions, isTTY: boolean): OutputMode {
  // Two formats for one stdout: which one a script reads would be a guess.
  const chosen = (["json", "csv", "quiet"] as const).filter((format) => globals[format]);
  if (chosen.length > 1)
    throw usageError(
      `${chosen
        .map((format) => `--${format}`)
        .join(", ")
        .replace(/, (?=[^,]*$)/, " and ")} each choose the output; give one.`,
    );
  if (globals.json) return "json";
  if (globals.csv) return "csv";
  if (globals.quiet) return "quiet";
  return isTTY ? "table" : "plain";
}

/** Builds the context of one command invocation. */
export function createContext(deps: MainDeps, globals: GlobalOptions): Context {
  const { io, env } = deps;
  const isTTY = io.stdout.isTTY === true;
  // stdin last: touching process.stdin builds its stream (for a file, fs streams and their
  // promises API), which a script or a pipeline never needs.
  // As cli-contract.md says it: with CI set (to anything, false and empty included) nothing is
  // asked.
  const canPrompt = io.stderr.isTTY === true && env.CI === undefined && io.stdin.isTTY === true;
  let store: ProfileStore | undefined;
  let settings: Settings | undefined;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // Messages often quote the service's data: printed as any text for people is (terminal-text.ts).
  const info = (message: string) =>
    io.stderr.write(`${terminalText(message, "many", wantsColor(globals, env, isTTY))}\n`);
  let keys: (() => string) | undefined;
  /** The invocation's one sequence of POST keys, shared by every client it makes. */
  const postKeys = () => {
    const given = globals.idempotencyKey;
    if (given !== undefined && given.trim() === "") {
      throw usageError(
        "--idempotency-key must not be blank.",
        "Give a key such as nightly-2026-11-27.",
      );
    }
    // A header carries text in ASCII only (undici refuses anything else before sending).
    if (given !== undefined && !/^[\x20-\x7e]+$/.test(given)) {
      throw usageError(
        "--idempotency-key takes printable ASCII characters only (letters, digits, - _ . : and the like).",
        "Give a key such as nightly-2026-11-27.",
      );
    }
    if (given !== undefined && given.length > longestIdempotencyKey) {
      throw usageError(
        `--idempotency-key is ${given.length} characters; the service takes 255 at most, and a command that posts more than once adds -2, -3…`,
        `Use a key of at most ${longestIdempotencyKey} characters.`,
      );
    }
    keys ??= idempotencyKeySequence(given);
    return keys;
  };

  /** The own workspace of a workspace token, once asked (see workspaceId). */
  let tokenWorkspace: Promise<string | null> | undefined;
  /** Throws the usage error of a profile named by --profile or RESELLER_PROFILE that is not stored. */
  const refuseUnknownProfile = async ({ profile }: Settings): Promise<void> => {
    if (profile.source !== "flag" && profile.source !== "env") return;
    const store = await ctx.profiles();
    if (store.get(profile.value)) return;
    throw noSuchProfile(
      profile.value,
      store.list().map((p) => p.name),
      profile.source,
    );
  };
  const ctx: Context = {
    io,
    env,
    globals,
    isTTY,
    canPrompt,
    color: wantsColor(globals, env, isTTY),
    output: outputMode(globals, isTTY),
    prompter:
      deps.prompter ?? inquirerPrompter(io, wantsColor(globals, env, io.stderr.isTTY === true)),
    dispatcher: deps.dispatcher,
    now: deps.now ?? (() => new Date()),
    sleep,
    info,
    profiles: async () => {
      if (!store) {
        const { ProfileStore } = await import("./profile-store.js");
        store = new ProfileStore(env.RESELLER_CONFIG_DIR);
      }
      return store;
    },
    settings: async () => {
      if (!settings) {
        const profiles = await ctx.profiles();
        try {
          const name = resolveProfileName(globals, env, profiles.activeName);
          settings = resolveSettings(globals, env, name, profiles.get(name.value));
        } catch (error) {
          // A broken config file stops only the commands that would read it: a CI job given its
          // token and base URL by flags or environment needs none of it.
          const given =
            (globals.token ?? env.RESELLER_TOKEN) &&
            (globals.baseUrl ?? env.RESELLER_BASE_URL) &&
            // A profile asked for by name is never silently done without.
            !(globals.profile ?? env.RESELLER_PROFILE);
          const broken = error instanceof CliError && error.errorCode === brokenConfigCode;
          if (!broken || !given) throw error;
          info(`${error.message} Not read: the token and base URL were given.`);
          const name = resolveProfileName(globals, env, defaultProfileName);
          settings = resolveSettings(globals, env, name, undefined);
        }
      }
      return settings;
    },
    client: async (overrides = {}) => {
      const resolved = await ctx.settings();
      const token = overrides.token ?? resolved.token.value;
      // A profile named by flag or environment must exist, even when the token comes from
      // elsewhere: a mistyped --profile would otherwise send to another base URL or workspace
      // than the one meant. `login` and `workspaces use` name the profile they write to.
      if (overrides.token === undefined && !overrides.profileMayBeNew) {
        await refuseUnknownProfile(resolved);
      }
      if (!token) {
        // Exit 3 and the code of the service's 401 for a request without a token, as `auth
        // status` exits: a script tells "log in" apart from a bad flag.
        throw new CliError(
          "auth",
          "Not logged in: no token from --token, RESELLER_TOKEN or the profile.",
          "Run `reseller login` (or set RESELLER_TOKEN).",
          [],
          "unauthenticated",
        );
      }
      if (!isTokenText(token)) {
        // Sent as it is, it fails inside the HTTP client, which reads as an unreachable service.
        const source = overrides.token === undefined ? resolved.token.source : "given";
        const from =
          source === "flag" ? " (from --token)" : source === "env" ? " (from RESELLER_TOKEN)" : "";
        throw usageError(
          `Invalid token${from}: a token is printable ASCII without spaces; this one holds a space, a control character or a non-ASCII letter.`,
          "Copy the token again as it was shown when it was created.",
        );
      }
      const baseUrl = overrides.baseUrl ?? resolved.baseUrl.value;
      const problem = baseUrlProblem(baseUrl);
      if (problem) {
        throw usageError(
          `Invalid base URL (from ${baseUrlSource(resolved.baseUrl.source)}): ${problem}`,
          "Fix --base-url, RESELLER_BASE_URL or the profile (`reseller login`).",
        );
      }
      const { ApiClient } = await import("../client/api-client.js");
      return new ApiClient({
        baseUrl,
        token,
        userAgent: `reseller-cli/${cliVersion()} node/${process.versions.node}`,
        ...(deps.dispatcher ? { dispatcher: deps.dispatcher } : {}),
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        idempotencyKeys: postKeys(),
        onRetry: (e) =>
          info(
            `${e.reason} on ${e.method} ${e.path}; retrying in ${(e.waitMs / 1000).toFixed(1)} s (attempt ${e.attempt})…`,
          ),
        onReplay: (e) => {
          // Said where the command's own message is (run-command.ts): not in --json or --quiet.
          if (ctx.output !== "json" && ctx.output !== "quiet") {
            info(
              `The service had already done this ${e.method} ${e.path} under this idempotency key: its first answer follows, and nothing was done again.`,
            );
          }
        },
        ...(globals.debug
          ? {
              onExchange: (e) =>
                info(
                  `[debug] ${e.method} ${redactedUrl(e.url)} -> ${e.status ?? e.error} in ${e.ms.toFixed(0)} ms${e.requestId ? ` (${e.requestId})` : ""}${token ? ` [token ${maskToken(token)}]` : ""}`,
                ),
            }
          : {}),
      });
    },
    workspaceId: async () => {
      const settings = await ctx.settings();
      const workspace = settings.workspace.value;
      // A workspace token reaches one workspace, its own.
      if (tokenWorkspaceApplies(settings)) {
        // Asked once per command, however often it needs the workspace.
        tokenWorkspace ??= (async () => {
          const { CurrentTokenResponse } = await import("../contract/tokens.js");
          const client = await ctx.client();
          return (await client.get("/api/v1/tokens/current", CurrentTokenResponse)).body.data
            .workspace_id;
        })();
        const own = await tokenWorkspace;
        if (own) return own;
      }
      if (!workspace) {
        // As for a missing token: a mistyped --profile, not the workspace, is what to fix.
        await refuseUnknownProfile(settings);
        throw usageError(
          "No workspace given.",
          "Pass -w/--workspace <id>, set RESELLER_WORKSPACE, or run `reseller workspaces use <id>`.",
        );
      }
      return workspace;
    },
    workspaceArg: async () => {
      const { workspace } = await ctx.settings();
      return workspace.source === "flag" && workspace.value ? ` -w ${workspace.value}` : "";
    },
  };
  return ctx;
}
