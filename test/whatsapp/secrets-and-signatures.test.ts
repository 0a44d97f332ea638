import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { secretBoxFromKey } from "../../src/service/domain/secret-box.js";
import { validSignature } from "../../src/service/messaging/whatsapp-webhooks.js";

describe("access tokens at rest", () => {
  const box = secretBoxFromKey(Buffer.alloc(32, 9).toString("base64"));

  it("seals a token so that only the same key opens it, differently each time", () => {
    const a = box.seal("EAAG-token");
    const b = box.seal("EAAG-token");
    expect(a).not.toBe(b);
    expect(a).not.toContain("EAAG");
    expect(box.open(a)).toBe("EAAG-token");
    const other = secretBoxFromKey(Buffer.alloc(32, 1).toString("base64"));
    expect(() => other.open(a)).toThrow();
  });

  it("refuses a sealed token that was tampered with", () => {
    const parts = box.seal("EAAG-token").split(".");
    const data = Buffer.from(parts[3] ?? "", "base64url");
    data[0] = (data[0] ?? 0) ^ 1;
    parts[3] = data.toString("base64url");
    expect(() => box.open(parts.join("."))).toThrow();
  });

  it("refuses a key that is not 32 bytes of base64, saying how to make one", () => {
    expect(() => secretBoxFromKey("c2hvcnQ=")).toThrow(/32 bytes.*openssl rand -base64 32/);
  });
});

describe("webhook signatures", () => {
  const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
  const good = `sha256=${createHmac("sha256", "s3cret").update(body).digest("hex")}`;

  it("accepts the HMAC-SHA256 of the exact bytes with the app secret", () => {
    expect(validSignature(body, good, "s3cret")).toBe(true);
  });

  it.each([
    ["missing", undefined],
    ["without the sha256= prefix", good.slice(7)],
    ["of another secret", `sha256=${createHmac("sha256", "other").update(body).digest("hex")}`],
    ["cut short", good.slice(0, 40)],
    ["not hex", "sha256=zz"],
    ["with anything after the digest", `${good}zz`],
    ["with a hex digit too many", `${good}0`],
  ])("refuses a signature %s", (_what, header) => {
    expect(validSignature(body, header, "s3cret")).toBe(false);
  });
});
