import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type Conf from "conf";
import { ownValue } from "../contract/own-value.js";
import { brokenConfigCode, CliError } from "./cli-error.js";
import { withFileLock } from "./file-lock.js";
import { defaultProfileName } from "./settings.js";

/** What a profile remembers; every field can be overridden by flags and environment. */
export interface Profile {
  base_url?: string;
  token?: string;
  workspace?: string;
}

interface StoredConfig {
  active_profile: string;
  profiles: Record<string, Profile>;
}

const defaults: StoredConfig = { active_profile: defaultProfileName, profiles: {} };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The config file's content, or a usage error naming the file: a hand-edited file that is not
 * what the CLI writes would otherwise be silently ignored, or fail later with a stack.
 * (Checked by hand: a schema library here would load on every command's start.)
 */
function storedConfig(text: string, file: string): Partial<StoredConfig> {
  const broken = (why: string) =>
    new CliError(
      "usage",
      `The config file ${file} ${why}.`,
      "Fix it, or delete it and run `reseller login` again.",
      [],
      brokenConfigCode,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw broken(`is not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw broken("does not hold a JSON object");
  if (parsed.active_profile !== undefined && typeof parsed.active_profile !== "string") {
    throw broken("has an active_profile that is not a string");
  }
  if (parsed.profiles !== undefined) {
    if (!isObject(parsed.profiles)) throw broken("has profiles that are not an object");
    for (const [name, profile] of Object.entries(parsed.profiles)) {
      if (!isObject(profile)) throw broken(`has a profile '${name}' that is not an object`);
      for (const field of ["base_url", "token", "workspace"] as const) {
        const value = profile[field];
        if (value !== undefined && typeof value !== "string") {
          throw broken(`has a ${field} in profile '${name}' that is not a string`);
        }
      }
    }
  }
  return parsed as Partial<StoredConfig>;
}

/**
 * The folder conf keeps the profiles in (env-paths' config folder for "reseller", as conf
 * computes it), unless RESELLER_CONFIG_DIR names one.
 */
export function profileDirectory(directory?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (directory) return path.resolve(directory);
  const home = homedir();
  if (process.platform === "darwin") return path.join(home, "Library", "Preferences", "reseller");
  if (process.platform === "win32")
    return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "reseller", "Config");
  // An empty or relative XDG_CONFIG_HOME counts as unset (the XDG spec): otherwise the token
  // would be written into whatever folder the command runs in, a project checkout perhaps.
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config");
  return path.join(base, "reseller");
}

/**
 * Named profiles in a config file that only its owner can read (file 0600, folder 0700).
 * conf writes the file; reading it is a plain JSON read, so commands that only read their
 * profile never load conf and its validator (a fifth of a command's start-up).
 */
export class ProfileStore {
  /** Where the file lives, for `auth status`. */
  readonly path: string;
  private readonly directory: string;
  private conf: Conf<StoredConfig> | undefined;
  private cached: StoredConfig | undefined;

  constructor(directory?: string) {
    this.directory = profileDirectory(directory);
    this.path = path.join(this.directory, "config.json");
  }

  private read(): StoredConfig {
    if (this.conf) return this.conf.store;
    if (!this.cached) {
      let text: string | undefined;
      try {
        text = readFileSync(this.path, "utf8");
      } catch {
        // Missing or unreadable: conf would start from the defaults too (and rewrite it on save).
      }
      this.cached = { ...defaults, ...(text === undefined ? {} : storedConfig(text, this.path)) };
    }
    return this.cached;
  }

  /** conf, loaded for writing only. */
  private async writer(): Promise<Conf<StoredConfig>> {
    if (!this.conf) {
      // conf creates a missing folder with the default mode; profiles hold tokens.
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      const { default: ConfClass } = await import("conf");
      this.conf = new ConfClass<StoredConfig>({
        projectName: "reseller",
        projectSuffix: "",
        configName: "config",
        configFileMode: 0o600,
        defaults,
        cwd: this.directory,
      });
    }
    return this.conf;
  }

  get activeName(): string {
    return this.read().active_profile;
  }

  get(name: string): Profile | undefined {
    return ownValue(this.read().profiles, name);
  }

  list(): { name: string; profile: Profile; active: boolean }[] {
    const active = this.activeName;
    return Object.entries(this.read().profiles).map(([name, profile]) => ({
      name,
      profile,
      active: name === active,
    }));
  }

  /** Merges fields into a profile (creating it); an undefined field is removed. */
  async update(
    name: string,
    fields: Partial<Record<keyof Profile, string | undefined>>,
  ): Promise<void> {
    await this.locked((conf) => {
      const profiles = { ...conf.get("profiles") };
      const next: Profile = { ...ownValue(profiles, name) };
      for (const [key, value] of Object.entries(fields) as [keyof Profile, string | undefined][]) {
        if (value === undefined) delete next[key];
        else next[key] = value;
      }
      profiles[name] = next;
      conf.set("profiles", profiles);
    });
  }

  async use(name: string): Promise<void> {
    await this.locked((conf) => conf.set("active_profile", name));
  }

  /**
   * Runs a read-modify-write of the file holding `config.json.lock`: CI jobs run in parallel
   * under one HOME, and each rewrites the whole file, so without it parallel logins lose
   * profiles. conf is opened inside too: opening writes the defaults into a missing file.
   */
  private async locked(change: (conf: Conf<StoredConfig>) => void): Promise<void> {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    await withFileLock(`${this.path}.lock`, async () => change(await this.writer()));
  }
}
