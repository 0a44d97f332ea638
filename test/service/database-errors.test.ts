import { describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.js";
import { explainedDatabaseError } from "../../src/cli/commands/admin/database-errors.js";
import { isDatabaseUnavailable } from "../../src/service/db/database-errors.js";

const failure = (code: string | undefined, message = "failed") =>
  Object.assign(new Error(message), code === undefined ? {} : { code });

describe("a database that cannot be reached", () => {
  it("is the same to the service (503) and to the CLI (cannot reach)", () => {
    const unreachable = [
      failure("ECONNREFUSED"),
      failure("ENETUNREACH"),
      failure("57P01"),
      failure(undefined, "Connection terminated unexpectedly"),
    ];
    for (const error of unreachable) {
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
      const explained = explainedDatabaseError(error, "postgres://db.example/reseller");
      expect(explained, error.message).toBeInstanceOf(CliError);
      expect((explained as CliError).message).toMatch(/^Cannot reach the PostgreSQL server/);
    }
  });

  it("is not a statement's own failure", () => {
    expect(isDatabaseUnavailable(failure("23505", "duplicate key"))).toBe(false);
    expect(isDatabaseUnavailable(failure(undefined, "no such table: contacts"))).toBe(false);
  });
});
