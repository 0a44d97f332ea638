import type { CatalogueFile } from "../contract/plans.js";
import { demoCatalogue } from "./catalogue/demo-catalogue.js";
import { makeCursorKey } from "./db/cursor-seal.js";
import type { Db } from "./db/database.js";
import { withNamedLock } from "./db/write-conflicts.js";
import type { Clock } from "./domain/clock.js";
import { hasPlans, loadCatalogue } from "./domain/plans.js";
import { createReseller, hasResellers } from "./domain/resellers.js";

/** What a start did to a database, so `serve` can tell the operator. */
export interface BootstrapResult {
  /** The first reseller's token when this start created the account; shown once. */
  createdToken: string | null;
  /** That account's id, so a start that fails before showing the token can take it back. */
  createdResellerId: string | null;
  catalogue: "file" | "demo" | "kept";
}

/** The lock of a database's one-time setup; `admin copy` holds it too while it fills a target. */
export const bootstrapLock = "reseller.bootstrap";

/** What a start brings: the first account's token and the `--plans` file, read and checked. */
export interface BootstrapOptions {
  bootstrapToken?: string | undefined;
  catalogue?: CatalogueFile | undefined;
}

/**
 * Readies a database for serving: the first reseller account (with RESELLER_BOOTSTRAP_TOKEN's
 * value, or a random token) when none exists, the catalogue from `--plans` or the demo one, and
 * the key of sealed cursors (so that no request, not even a refused one, writes it).
 */
export async function bootstrap(
  db: Db,
  clock: Clock,
  options: BootstrapOptions,
): Promise<BootstrapResult> {
  // Several instances starting on an empty database create one account and one catalogue.
  return withNamedLock(db, bootstrapLock, (locked) => readyDatabase(locked, clock, options));
}

async function readyDatabase(
  db: Db,
  clock: Clock,
  options: BootstrapOptions,
): Promise<BootstrapResult> {
  let catalogue: BootstrapResult["catalogue"] = "kept";
  if (options.catalogue) {
    await loadCatalogue(db, clock, options.catalogue);
    catalogue = "file";
  } else if (!(await hasPlans(db))) {
    await loadCatalogue(db, clock, demoCatalogue);
    catalogue = "demo";
  }
  await makeCursorKey(db);
  let createdToken: string | null = null;
  let createdResellerId: string | null = null;
  if (!(await hasResellers(db))) {
    const created = await createReseller(db, clock, {
      name: "Default reseller",
      ...(options.bootstrapToken ? { secret: options.bootstrapToken } : {}),
    });
    createdToken = created.token.secret;
    createdResellerId = created.resellerId;
  }
  return { createdToken, createdResellerId, catalogue };
}
