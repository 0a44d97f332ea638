import { redactedUrl } from "../../../contract/redacted-url.js";
import type { Handler } from "../../command-spec.js";
import { tableView } from "../../output/view.js";
import { maskToken } from "../../settings.js";

/** `reseller profiles list`: stored profiles with masked tokens. */
export const run: Handler = async (ctx) => {
  const rows = (await ctx.profiles()).list().map(({ name, profile, active }) => ({
    name,
    active,
    base_url: profile.base_url ? redactedUrl(profile.base_url) : null,
    token: profile.token ? maskToken(profile.token) : null,
    workspace: profile.workspace ?? null,
  }));
  return {
    data: rows,
    view: tableView(
      rows,
      [
        {
          header: "Profile",
          key: "name",
          value: (r) => r.name,
          display: (r, paint) => (r.active ? paint.bold(`* ${r.name}`) : `  ${r.name}`),
        },
        { header: "Base URL", key: "base_url", value: (r) => r.base_url },
        { header: "Token", key: "token", value: (r) => r.token },
        { header: "Workspace", key: "workspace", value: (r) => r.workspace },
        // The terminal marks the active profile with `*`; a script reads it from this column.
        { header: "Active", key: "active", value: (r) => r.active, terminal: false },
      ],
      { empty: "No profiles yet: run `reseller login`.", ids: (r) => r.name },
    ),
  };
};
