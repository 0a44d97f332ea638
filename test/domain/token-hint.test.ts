import { describe, expect, it } from "vitest";
import { generateSecret, tokenHint } from "../../src/service/domain/tokens.js";

describe("a token's hint in listings", () => {
  it("shows a generated token's prefix and last four characters", () => {
    const secret = generateSecret("reseller");
    expect(tokenHint(secret)).toBe(`rsk_…${secret.slice(-4)}`);
  });

  it("never shows more than a third of a short token chosen by hand, such as a bootstrap token", () => {
    expect(tokenHint("rsk_dev_token")).toBe("rs…en");
    expect(tokenHint("abc")).toBe("…");
    expect(tokenHint("abcdefgh")).toBe("a…h");
    for (const secret of ["x", "rsk_dev", "twelve-chars", "a-token-of-23-characters"]) {
      const shown = tokenHint(secret).replace("…", "").length;
      expect(shown, secret).toBeLessThanOrEqual(secret.length / 3);
    }
  });
});
