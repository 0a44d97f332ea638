import { randomBytes, randomFillSync } from "node:crypto";
import { encodeTime, monotonicFactory } from "ulid";

const pool = new Uint32Array(4096);
let poolNext = pool.length;

/**
 * Cryptographic randomness drawn from a pool refilled 4096 values at a time: ulid's default asks
 * the kernel for fresh bytes per character, a system call per id that showed up in bulk imports.
 */
function pooledRandom(): number {
  if (poolNext === pool.length) {
    randomFillSync(pool);
    poolNext = 0;
  }
  return (pool[poolNext++] ?? 0) / 4294967296;
}

const nextUlid = monotonicFactory(pooledRandom);

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
  | "msg"
  | "whe"
  | "evt"
  | "we"
  | "wd"
  | "wa"
  | "ins";

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
