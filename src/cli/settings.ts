import { defaultPort } from "../contract/local-service.js";
import { type CliError, usageError } from "./cli-error.js";
import type { Env } from "./env-vars.js";
import type { Profile } from "./profile-store.js";

/** "token": a workspace token's own workspace (see tokenWorkspaceApplies). */
export type Source = "flag" | "env" | "profile" | "default" | "none" | "token";

/** A setting's value and where it came from, for `auth status`. */
export interface Sourced<T> {
  value: T;
  source: Source;
}

export interface Settings {
  profile: Sourced<string>;
  baseUrl: Sourced<string>;
  token: Sourced<string | undefined>;
  workspace: Sourced<string | undefined>;
}

/** Where `reseller serve` listens when run without --host or --port. */
export const defaultBaseUrl = `http://127.0.0.1:${defaultPort}`;

/** The profile used until another is chosen. */
export const defaultProfileName = "default";

/** The flags that can override stored settings. */
export interface SettingFlags {
  baseUrl?: string | undefined;
  token?: string | undefined;
  profile?: string | undefined;
  workspace?: string | undefined;
}

/**
 * The first value given: flag, environment, profile. An empty flag is refused rather than
 * skipped: `-w "$WS"` with WS unset would otherwise act in the profile's workspace, another
 * client's. An empty variable (or one of spaces) counts as unset, as shells and CI use it.
 */
function pick(
  flag: { name: string; value: string | undefined },
  env: string | undefined,
  profile: string | undefined,
): Sourced<string | undefined> {
  if (flag.value !== undefined && flag.value.trim() === "")
    throw usageError(
      `${flag.name} is empty.`,
      `Give it a value, or leave ${flag.name} out to use the environment or the profile.`,
    );
  if (flag.value !== undefined) return { value: flag.value, source: "flag" };
  if (env !== undefined && env.trim() !== "") return { value: env, source: "env" };
  if (profile !== undefined && profile !== "") return { value: profile, source: "profile" };
  return { value: undefined, source: "none" };
}

/** Which profile is in force: flag, then RESELLER_PROFILE, then the stored active one. */
export function resolveProfileName(
  flags: SettingFlags,
  env: Env,
  storedActive: string,
): Sourced<string> {
  const picked = pick({ name: "--profile", value: flags.profile }, env.RESELLER_PROFILE, undefined);
  if (picked.value !== undefined) return { value: picked.value, source: picked.source };
  return {
    value: storedActive,
    source: storedActive === defaultProfileName ? "default" : "profile",
  };
}

/** Applies the precedence flag > environment > profile > default to every setting. */
export function resolveSettings(
  flags: SettingFlags,
  env: Env,
  profileName: Sourced<string>,
  profile: Profile | undefined,
): Settings {
  const baseUrl = pick(
    { name: "--base-url", value: flags.baseUrl },
    env.RESELLER_BASE_URL,
    profile?.base_url,
  );
  return {
    profile: profileName,
    baseUrl:
      baseUrl.value === undefined
        ? { value: defaultBaseUrl, source: "default" }
        : { value: baseUrl.value, source: baseUrl.source },
    // A token read from a file with Windows line endings (`$(cat token.txt)`) keeps its \r.
    token: pick(
      { name: "--token", value: flags.token?.trim() },
      env.RESELLER_TOKEN?.trim(),
      profile?.token,
    ),
    workspace: pick(
      { name: "--workspace", value: flags.workspace },
      env.RESELLER_WORKSPACE,
      profile?.workspace,
    ),
  };
}

/**
 * Whether commands work in the workspace token's own workspace rather than the setting: where
 * nothing names one, or where the profile's default was chosen for the profile's own token
 * while this one comes from --token or RESELLER_TOKEN.
 */
export function tokenWorkspaceApplies(settings: Settings): boolean {
  if (!settings.token.value?.startsWith("wsk_")) return false;
  const { source } = settings.workspace;
  return source === "none" || (source === "profile" && settings.token.source !== "profile");
}

/** A token safe to print: its prefix and last four characters. */
export function maskToken(token: string): string {
  return token.length <= 10 ? "****" : `${token.slice(0, 4)}…${token.slice(-4)}`;
}

/** The usage error for a profile name that names no stored profile, with the ones there are. */
export function noSuchProfile(name: string, known: string[], source?: "flag" | "env"): CliError {
  const from =
    source === "flag" ? " (from --profile)" : source === "env" ? " (from RESELLER_PROFILE)" : "";
  return usageError(
    `No profile named '${name}'${from}.`,
    known.length
      ? `Known profiles: ${known.join(", ")}. Create '${name}' with \`reseller login --profile ${name}\`.`
      : `Create one with \`reseller login --profile ${name}\`.`,
  );
}
