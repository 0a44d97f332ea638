import type { Handler } from "../../command-spec.js";
import { noSuchProfile } from "../../settings.js";

/** `reseller profiles use <name>`: switches the active profile. */
export const run: Handler = async (ctx, { args }) => {
  const name = args[0] ?? "";
  const store = await ctx.profiles();
  if (!store.get(name)) {
    throw noSuchProfile(
      name,
      store.list().map((p) => p.name),
    );
  }
  await store.use(name);
  return { data: { active_profile: name }, message: `Profile '${name}' is now active.` };
};
