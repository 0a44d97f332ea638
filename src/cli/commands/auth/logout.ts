import type { Handler } from "../../command-spec.js";

/** `reseller logout`: removes the stored token of the profile in force. */
export const run: Handler = async (ctx) => {
  const settings = await ctx.settings();
  const store = await ctx.profiles();
  const profile = settings.profile.value;
  const had = store.get(profile)?.token !== undefined;
  // A profile that holds no token is left as it is: logging out never creates one.
  if (had) await store.update(profile, { token: undefined });
  const note =
    settings.token.source === "env" || settings.token.source === "flag"
      ? ` A token still comes from ${settings.token.source === "env" ? "RESELLER_TOKEN" : "--token"}.`
      : "";
  // The active profile stays active without a token: every command would then ask for a login,
  // so name a profile that still has one.
  const other = store
    .list()
    .find((entry) => entry.name !== profile && entry.profile.token !== undefined);
  const switchNote =
    had && note === "" && store.activeName === profile && other
      ? ` '${profile}' is still the active profile; \`reseller profiles use ${other.name}\` switches to one with a token.`
      : "";
  return {
    data: { profile, logged_out: had },
    message: had
      ? `Removed the token of profile '${profile}'.${note}${switchNote}`
      : `Profile '${profile}' had no stored token.${note}`,
  };
};
