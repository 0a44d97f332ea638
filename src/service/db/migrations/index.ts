import type { Migration, MigrationProvider } from "kysely";
import * as accountsAndPlans from "./0001-accounts-and-plans.js";

/**
 * Every migration, in order. Listed in code rather than read from a folder so the compiled
 * package needs no file-system lookup; a new migration is a new numbered file plus a line here.
 */
const migrations: Record<string, Migration> = {
  "0001-accounts-and-plans": accountsAndPlans,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
