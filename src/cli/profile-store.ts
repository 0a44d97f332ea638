import Conf from "conf";
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

/** Named profiles in a config file that only its owner can read (mode 0600). */
export class ProfileStore {
  private readonly conf: Conf<StoredConfig>;

  constructor(directory?: string) {
    this.conf = new Conf<StoredConfig>({
      projectName: "reseller",
      projectSuffix: "",
      configName: "config",
      configFileMode: 0o600,
      defaults: { active_profile: defaultProfileName, profiles: {} },
      ...(directory ? { cwd: directory } : {}),
    });
  }

  /** Where the file lives, for `auth status`. */
  get path(): string {
    return this.conf.path;
  }

  get activeName(): string {
    return this.conf.get("active_profile");
  }

  get(name: string): Profile | undefined {
    return this.conf.get("profiles")[name];
  }

  list(): { name: string; profile: Profile; active: boolean }[] {
    const active = this.activeName;
    return Object.entries(this.conf.get("profiles")).map(([name, profile]) => ({
      name,
      profile,
      active: name === active,
    }));
  }

  /** Merges fields into a profile (creating it); an undefined field is removed. */
  update(name: string, fields: Partial<Record<keyof Profile, string | undefined>>): void {
    const profiles = { ...this.conf.get("profiles") };
    const next: Profile = { ...profiles[name] };
    for (const [key, value] of Object.entries(fields) as [keyof Profile, string | undefined][]) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    profiles[name] = next;
    this.conf.set("profiles", profiles);
  }

  use(name: string): void {
    this.conf.set("active_profile", name);
  }
}
