import { describe, expect, it } from "vitest";
import { CliError } from "../../cli-error.js";
import { explainedDatabaseError } from "./database-errors.js";

const label = "postgres://app:***@db.internal/reseller";

/** The error a driver's error becomes, as the admin commands and serve say it. */
function explained(error: Error & { code?: string }): CliError {
  const result = explainedDatabaseError(error, label);
  if (!(result instanceof CliError)) throw new Error(`not explained: ${error.message}`);
  return result;
}

describe("database errors said in words", () => {
  it("tells a server certificate this machine does not trust, and how to trust it (exit 2)", () => {
    const error = Object.assign(new Error("self-signed certificate"), {
      code: "DEPTH_ZERO_SELF_SIGNED_CERT",
    });
    const said = explained(error);
    expect(said).toMatchObject({ exitCode: 2, errorCode: "database_tls" });
    expect(said.message).toContain("PostgreSQL's TLS certificate is not trusted here");
    expect(said.hint).toContain("sslrootcert=");
  });

  it("leaves a server's refusal of the client's certificate a refused login (exit 3)", () => {
    const error = Object.assign(new Error("connection requires a valid client certificate"), {
      code: "28000",
    });
    expect(explained(error)).toMatchObject({ exitCode: 3, errorCode: "database_login_refused" });
  });

  it("never fails on a database name whose percent-escapes do not decode", () => {
    const error = Object.assign(new Error('database "a%zz" does not exist'), { code: "3D000" });
    const said = explainedDatabaseError(error, "postgres://app:***@db.internal/a%zz");
    expect(said).toMatchObject({ errorCode: "database_not_found" });
    expect((said as CliError).hint).toContain('createdb "a%zz"');
  });
});
