import type { Migration, MigrationProvider } from "kysely";
import * as accountsAndPlans from "./0001-accounts-and-plans.js";
import * as workspacesOutboxIdempotency from "./0002-workspaces-outbox-idempotency.js";
import * as jobs from "./0003-jobs.js";

/**
 * Every migration, in order. Listed in code rather than read from a folder so the compiled
 * package needs no file-system lookup; a new migration is a new numbered file plus a line here.
 */
const migrations: Record<string, Migration> = {
  "0001-accounts-and-plans": accountsAndPlans,
  "0002-workspaces-outbox-idempotency": workspacesOutboxIdempotency,
  "0003-jobs": jobs,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
