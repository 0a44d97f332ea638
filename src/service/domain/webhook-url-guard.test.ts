import { describe, expect, it } from "vitest";
import { isPrivateAddress, privateUrlReason } from "./webhook-url-guard.js";

describe("addresses webhooks may not reach under --block-private-webhooks", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "169.254.169.254",
    "100.64.0.1",
    "198.18.0.1",
    "224.0.0.1",
    "240.0.0.1",
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "fe80::1",
    "fec0::1",
    "fd00::1",
    "ff02::1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::169.254.169.254",
    "2002:7f00:1::1",
  ])("refuses %s", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "2606:4700:4700::1111",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows %s", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe("endpoint URLs under --block-private-webhooks", () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) => {
    const found = answers[host];
    if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

  it("refuses a host that resolves to a private address", async () => {
    const reason = await privateUrlReason(
      "https://crm.example.test/hooks",
      resolver({ "crm.example.test": ["93.184.215.14", "10.0.0.7"] }),
    );
    expect(reason).toContain("resolves to 10.0.0.7");
  });

  it("accepts a host that does not resolve yet: each delivery checks the addresses it connects to", async () => {
    expect(await privateUrlReason("https://not-yet.example.test/hooks", resolver({}))).toBeNull();
  });
});
