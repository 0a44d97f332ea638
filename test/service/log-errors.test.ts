import { describe, expect, it } from "vitest";
import { loggedError } from "../../src/service/log-errors.js";

describe("errors in the service's log", () => {
  it("keep the message, code and constraint, but not the row PostgreSQL quotes", () => {
    // As node-postgres raises a unique violation: the values are in `detail` alone.
    const error = Object.assign(
      new Error('duplicate key value violates unique constraint "contacts_phone"'),
      {
        code: "23505",
        constraint: "contacts_phone",
        detail: "Key (workspace_id, phone)=(ws_01a, +4915112345678) already exists.",
        where: "SQL statement \"INSERT INTO contacts VALUES ('Ada', '+4915112345678')\"",
        internalQuery: "SELECT '+4915112345678'",
      },
    );
    const logged = loggedError(error);
    expect(logged).toMatchObject({
      type: "Error",
      message: 'duplicate key value violates unique constraint "contacts_phone"',
      code: "23505",
      constraint: "contacts_phone",
    });
    expect(logged.stack).toContain("log-errors.test.ts");
    expect(JSON.stringify(logged)).not.toContain("+4915112345678");
    // The error itself is left as it was, for whatever handles it next.
    expect(error.detail).toContain("+4915112345678");
  });

  it("keep no quoted row from the errors inside an error either", () => {
    const quoting = Object.assign(new Error('null value in column "phone"'), {
      detail: "Failing row contains (ct_01, Ada, +4915112345678).",
    });
    const logged = loggedError(
      Object.assign(new AggregateError([quoting], "two writes failed"), { first: quoting }),
    );
    expect(JSON.stringify(logged)).toContain('null value in column \\"phone\\"');
    expect(JSON.stringify(logged)).not.toContain("+4915112345678");
  });
});
