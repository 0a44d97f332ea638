import { randomBytes } from "node:crypto";
import { encodeTime, monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** Type prefixes of resource ids, as the API contract lists them. */
export type IdPrefix =
  | "ws"
  | "ct"
  | "cmp"
  | "tpl"
  | "imp"
  | "ch"
  | "tok"
  | "rs"
  | "req"
  | "job"
  | "eml"
  | "msg";

/** A new opaque id that sorts by creation time, e.g. `ws_01jd3…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

const base32 = "0123456789abcdefghjkmnpqrstvwxyz";
const processTag = Array.from(randomBytes(8), (b) => base32[b % 32]).join("");
let requestCount = 0;

/**
 * A request id shaped like the other ids (`req_` and 26 characters, time first) but made from
 * the time, a per-process tag and a counter: cheap enough for every request, unique per process.
 */
export function newRequestId(): string {
  requestCount = (requestCount + 1) % 32 ** 8;
  let counter = "";
  for (let n = requestCount, i = 0; i < 8; i++, n = Math.floor(n / 32))
    counter = base32[n % 32] + counter;
  return `req_${encodeTime(Date.now()).toLowerCase()}${processTag}${counter}`;
}
