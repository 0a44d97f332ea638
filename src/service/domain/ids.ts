import { monotonicFactory } from "ulid";

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
  | "eml";

/** A new opaque id that sorts by creation time, e.g. `ws_01jd3…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}
