import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Loopback, private, link-local, unspecified and carrier-grade NAT ranges, IPv4 and IPv6. */
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address is loopback, private or link-local (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return privateRanges.check(mapped, "ipv4");
  const family = isIP(address);
  if (family === 0) return false;
  return privateRanges.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Why a URL must not receive webhooks under `--block-private-webhooks` (its host resolves to a
 * loopback, private or link-local address, or does not resolve), or null when it may.
 */
export async function privateUrlReason(url: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `its host '${host}' does not resolve`;
  }
  const blocked = addresses.find(isPrivateAddress);
  return blocked
    ? `its host '${host}' resolves to ${blocked}, a loopback, private or link-local address, which this service refuses (--block-private-webhooks)`
    : null;
}
