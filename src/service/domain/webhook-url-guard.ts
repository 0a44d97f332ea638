import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent } from "undici";

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
export async function privateUrlReason(
  url: string,
  resolve: Resolver = systemResolver,
): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await resolve(host)).map((a) => a.address);
  } catch {
    return `its host '${host}' does not resolve`;
  }
  const blocked = addresses.find(isPrivateAddress);
  return blocked
    ? `its host '${host}' resolves to ${blocked}, a loopback, private or link-local address, which this service refuses (--block-private-webhooks)`
    : null;
}

/** Resolves a host name to every address it has (node's resolver, or a test's). */
export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => lookup(host, { all: true });

/**
 * A `lookup` for the sockets that deliver webhooks under `--block-private-webhooks`: the check
 * runs on the addresses the connection actually uses, so a host that resolved to a public
 * address when checked and to a private one a moment later (DNS rebinding) is still refused.
 */
export function guardedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (host, options, callback) => {
    resolve(host).then(
      (addresses) => {
        const blocked = addresses.find((a) => isPrivateAddress(a.address));
        if (blocked) {
          const error = Object.assign(
            new Error(
              `its host '${host}' resolves to ${blocked.address}, a loopback, private or link-local address, which this service refuses (--block-private-webhooks)`,
            ),
            { code: "EPRIVATEADDRESS" },
          );
          callback(error, "", 0);
          return;
        }
        const family = typeof options === "object" ? options.family : undefined;
        const usable = addresses.filter((a) => !family || a.family === family);
        if (typeof options === "object" && options.all) {
          (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, usable);
          return;
        }
        const first = usable[0];
        if (!first)
          callback(
            Object.assign(new Error(`'${host}' has no address`), { code: "ENOTFOUND" }),
            "",
            0,
          );
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

/** The HTTP agent of webhook deliveries under `--block-private-webhooks`. */
export function privateAddressGuardAgent(resolve?: Resolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(resolve) } });
}
