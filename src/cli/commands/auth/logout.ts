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
  return {
    data: { profile, logged_out: had },
    message: had
      ? `Removed the token of profile '${profile}'.${note}`
      : `Profile '${profile}' had no stored token.${note}`,
  };
};
