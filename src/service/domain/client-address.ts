import { isIPv6 } from "node:net";

/**
 * The key a client address is counted under: an IPv4 address as it is (also when it arrives
 * IPv4-mapped, `::ffff:1.2.3.4`), an IPv6 address by its /64 network, since one subscriber
 * usually holds a whole /64 and could otherwise take a fresh address for every request.
 */
export function clientAddressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::")
    ? [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
