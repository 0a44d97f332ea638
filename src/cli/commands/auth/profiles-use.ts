import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";

/** `reseller profiles use <name>`: switches the active profile. */
export const run: Handler = async (ctx, { args }) => {
  const name = args[0] ?? "";
  const store = await ctx.profiles();
  if (!store.get(name)) {
    const known = store.list().map((p) => p.name);
    throw usageError(
      `No profile named '${name}'.`,
      known.length
        ? `Known profiles: ${known.join(", ")}.`
        : "Create one with `reseller login --profile <name>`.",
    );
  }
  await store.use(name);
  return { data: { active_profile: name }, message: `Profile '${name}' is now active.` };
};
