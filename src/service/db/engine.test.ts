import { describe, expect, it } from "vitest";
import { redactedUrl } from "../../contract/redacted-url.js";
import { isPostgresUrl } from "./engine.js";

describe("database locations in messages", () => {
  it("hides a password given in the URL or in its query string", () => {
    expect(redactedUrl("postgres://app:s3cret@db/reseller")).toBe("postgres://app:***@db/reseller");
    const redacted = redactedUrl(
      "postgresql://app@db/reseller?password=s3cret&sslkey=k&sslmode=require",
    );
    expect(redacted).not.toContain("s3cret");
    expect(redacted).toContain("sslmode=require");
  });

  it("hides the password of a URL of another engine too, as a message refusing it quotes it", () => {
    expect(redactedUrl("mysql://app:s3cret@db/reseller")).toBe("mysql://app:***@db/reseller");
    expect(redactedUrl("mysql://app:s3cret@[db/reseller")).toBe("mysql://…");
  });

  it("leaves a SQLite file as it is and tells the engines apart", () => {
    expect(redactedUrl("data/reseller.db")).toBe("data/reseller.db");
    expect(isPostgresUrl("postgres://db/x")).toBe(true);
    expect(isPostgresUrl("POSTGRESQL://db/x")).toBe(true);
    expect(isPostgresUrl("reseller.db")).toBe(false);
  });
});
