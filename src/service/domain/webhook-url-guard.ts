import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent } from "undici";

/**
 * Addresses no webhook may reach: loopback, private, link-local, unspecified, carrier-grade NAT,
 * benchmarking, multicast and reserved ranges, IPv4 and IPv6 (site-local and multicast too).
 */
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  privateRanges.addSubnet(network, prefix, "ipv6");
}

const nat64 = new BlockList();
nat64.addSubnet("64:ff9b::", 96, "ipv6");
const sixToFour = new BlockList();
sixToFour.addSubnet("2002::", 16, "ipv6");

/** The IPv4 address inside an IPv6 one that carries it: NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (!groups) return null;
  const quad = (high: number, low: number) =>
    [high >> 8, high & 255, low >> 8, low & 255].join(".");
  if (nat64.check(address, "ipv6")) return quad(groups[6] ?? 0, groups[7] ?? 0);
  if (sixToFour.check(address, "ipv6")) return quad(groups[1] ?? 0, groups[2] ?? 0);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? 0 : 8 - front.length - back.length;
  const groups = [...front, ...Array<string>(Math.max(0, fill)).fill("0"), ...back];
  return groups.length === 8 ? groups.map((g) => Number.parseInt(g, 16)) : null;
}

/**
 * Whether an IP address is one no webhook may reach (see privateRanges), IPv4-mapped,
 * NAT64 and 6to4 forms of IPv4 addresses included.
 */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return privateRanges.check(mapped, "ipv4");
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return privateRanges.check(address, "ipv4");
  const inner = embeddedIpv4(address);
  if (inner !== null && privateRanges.check(inner, "ipv4")) return true;
  return privateRanges.check(address, "ipv6");
}

/**
 * Why a URL must not receive webhooks under `--block-private-webhooks` (its host resolves to a
 * loopback, private or link-local address), or null when it may. A host that does not resolve
 * now (a name not yet in DNS, a machine offline) may: each delivery checks the addresses it
 * connects to (guardedLookup), so it can never reach a private one later.
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
    return null;
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
