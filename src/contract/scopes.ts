import { z } from "zod";

import { scopes } from "./vocabulary.js";

/** Every scope a token can hold; an endpoint names the one it needs. */
export { scopes };

export const Scope = z.enum(scopes);
export type Scope = z.infer<typeof Scope>;

/** The readable prefixes of token secrets, so a leaked one is recognisable. */
export const tokenPrefixes = { reseller: "rsk_", workspace: "wsk_" } as const;
