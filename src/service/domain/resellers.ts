import type { Db } from "../db/database.js";
import { type Clock, isoSeconds } from "./clock.js";
import { newId } from "./ids.js";
import { allScopes, type IssuedToken, issueToken } from "./tokens.js";

/** A new reseller account with one token holding every scope. */
export interface CreatedReseller {
  resellerId: string;
  token: IssuedToken;
}

/** Creates a reseller account and its first all-scope token (`secret` fixes its value). */
export async function createReseller(
  db: Db,
  clock: Clock,
  input: { name: string; secret?: string },
): Promise<CreatedReseller> {
  const resellerId = newId("rs");
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto("resellers")
      .values({ id: resellerId, name: input.name, created_at: isoSeconds(clock.now()) })
      .execute();
    const token = await issueToken(trx, clock, {
      resellerId,
      name: `${input.name} (initial token)`,
      scopes: allScopes,
      ...(input.secret === undefined ? {} : { secret: input.secret }),
    });
    return { resellerId, token };
  });
}

/**
 * Takes back the first account a start created and then failed before showing its token (the
 * port taken): the next start creates it again and shows the token then. Nothing refers to the
 * account yet but its token.
 */
export async function removeUnshownReseller(db: Db, resellerId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("tokens").where("reseller_id", "=", resellerId).execute();
    await trx.deleteFrom("resellers").where("id", "=", resellerId).execute();
  });
}

/** Whether any reseller account exists yet (a fresh service has none). */
export async function hasResellers(db: Db): Promise<boolean> {
  const row = await db.selectFrom("resellers").select("id").limit(1).executeTakeFirst();
  return row !== undefined;
}
