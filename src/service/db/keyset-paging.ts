import { type SelectQueryBuilder, sql } from "kysely";
import type { Pagination } from "../../contract/pagination.js";
import { invalidField } from "../domain/service-error.js";
import type { CursorSeal } from "./cursor-seal.js";

/** The paging a list was asked for, as `PageQuery` validated it. */
export interface PageRequest {
  page: number;
  per_page: number;
  cursor?: string | undefined;
}

/** One page of rows and the `meta.pagination` that describes it. */
export interface Page<Row> {
  rows: Row[];
  pagination: Pagination;
  /** Rows of the list before this page (by page number, or walked by cursor). */
  skipped: number;
}

/** What a cursor carries: the last key shown and how many rows the walk has shown so far. */
interface CursorState<Key> {
  after: Key;
  seen: number;
}

/** Options of `paginate` for lists the id-ordered default does not suit. */
export interface PaginateOptions<Row> {
  /**
   * The total, when the caller knows it more cheaply than a count(*) of the query (a counter
   * kept by triggers, a full-text index's own count); at a million rows the count costs more
   * than the page.
   */
  total?: () => Promise<number>;
  /**
   * Orders and continues by an integer column that rises with the id (a rowid such as
   * `contacts.seq`, or a full-text index's rowid), so SQLite reads the page straight from that
   * index; `of` reads the key from a row. `order: "asc"` lists oldest (lowest) first. Its
   * cursors are sealed with `seal` (`cursorSeal(db)`), as a key counted across the service must be.
   */
  key?: {
    column: string;
    of: (row: Row) => number;
    order?: "asc" | "desc";
    seal: CursorSeal;
  };
}

/** How a list's cursors carry its key: an id as it is, an integer key sealed (cursor-seal.ts). */
export type CursorKey = "id" | CursorSeal;

const foreignCursor = () =>
  invalidField("cursor", "is not a next_cursor this list handed out; start without it");

/** The shape of every id (ids.ts: a type prefix, `_`, a lower-case ULID). */
const idShape = /^[a-z]{2,3}_[0-9a-z]{26}$/;

/** An id's type prefix (`ws` of `ws_01…`). */
const prefixOf = (id: string) => id.slice(0, id.indexOf("_"));

// An id is the caller's to see, so an id-ordered list's cursor is plain JSON in base64url.
function encodeIdCursor(state: CursorState<string>): string {
  return Buffer.from(JSON.stringify({ a: state.after, s: state.seen })).toString("base64url");
}

function decodeIdCursor(text: string): CursorState<string> {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null && "a" in value && "s" in value) {
      const { a, s } = value;
      // Text no database stores is a cursor this service never handed out, not a query for the
      // database to refuse.
      if (typeof a === "string" && idShape.test(a)) {
        if (Number.isSafeInteger(s) && Number(s) >= 0) return { after: a, seen: Number(s) };
      }
    }
  } catch {
    // Falls through to the same answer as a well-formed but foreign value.
  }
  throw foreignCursor();
}

function decodeCursor(text: string, key: CursorKey): CursorState<string | number> {
  if (key === "id") return decodeIdCursor(text);
  const opened = key.open(text);
  if (!opened) throw foreignCursor();
  return opened;
}

function idOf(row: object): string {
  const id = (row as { id?: unknown }).id;
  if (typeof id !== "string") throw new Error("paginate: rows need a string `id` without a key");
  return id;
}

/** Where a page starts: after the last key a cursor carries, or past `skipped` rows by number. */
export interface PageStart {
  perPage: number;
  skipped: number;
  /** The last key shown (rows continue below it, or above it when ascending); null by number. */
  after: string | number | null;
  /** How the list's cursors carry its key, for the next one. */
  key: CursorKey;
}

/** Where the requested page starts; `key` says how the list's cursors carry its key. */
export function pageStart(request: PageRequest, key: CursorKey): PageStart {
  const perPage = request.per_page;
  const cursor = request.cursor === undefined ? null : decodeCursor(request.cursor, key);
  return {
    perPage,
    skipped: cursor ? cursor.seen : (request.page - 1) * perPage,
    after: cursor ? cursor.after : null,
    key,
  };
}

function encodeCursor(key: CursorKey, after: string | number, seen: number): string {
  if (key === "id" && typeof after === "string") return encodeIdCursor({ after, seen });
  if (key !== "id" && typeof after === "number") return key.close(after, seen);
  throw new Error(
    `paginate: a ${typeof after} key where the list's cursors carry ${key === "id" ? "an id" : "an integer"}`,
  );
}

/**
 * The page of `fetched`, rows read from `start` with one row more than a page: that row tells
 * whether a next page exists without a second query. `keyOf` reads the key a cursor continues by.
 */
export function pageFrom<Row>(
  fetched: Row[],
  start: PageStart,
  total: number,
  keyOf: (row: Row) => string | number,
): Page<Row> {
  const { perPage, skipped } = start;
  const rows = fetched.slice(0, perPage);
  const last = rows.at(-1);
  const hasMore = fetched.length > perPage && last !== undefined;
  return {
    rows,
    skipped,
    pagination: {
      page: Math.floor(skipped / perPage) + 1,
      per_page: perPage,
      total,
      total_pages: Math.ceil(total / perPage),
      next_cursor: hasMore ? encodeCursor(start.key, keyOf(last), skipped + rows.length) : null,
    },
  };
}

/**
 * One page of `query` (already filtered, not ordered), newest first by `idColumn`, which must
 * be the table's time-sortable id selected as `id`. Without a cursor the page is found by
 * OFFSET; with one, by `idColumn < last id` (keyset), so a deep page costs what the first does.
 * Every page answers a `next_cursor`, so a client can switch from page numbers to the cursor.
 * `options` may supply the total and an integer key to order by instead (see PaginateOptions);
 * rows need an `id` only when no key is given.
 */
export async function paginate<DB, TB extends keyof DB, Row extends object>(
  query: SelectQueryBuilder<DB, TB, Row>,
  idColumn: string,
  request: PageRequest,
  options: PaginateOptions<Row> = {},
): Promise<Page<Row>> {
  const { key } = options;
  const id = sql.ref(key ? key.column : idColumn);
  const ascending = key?.order === "asc";
  const start = pageStart(request, key ? key.seal : "id");

  const total = options.total
    ? await options.total()
    : Number(
        (
          await query
            .clearSelect()
            .clearOrderBy()
            .select(sql<number | string | bigint>`count(*)`.as("total"))
            // With the database type generic, Kysely cannot narrow the row; the select fixes it.
            .$castTo<{ total: number | string | bigint }>()
            .executeTakeFirst()
        )?.total ?? 0,
      );

  // A literal: SQLite prepares a statement again at every run when its LIMIT is a bound parameter.
  let rowsQuery = query.orderBy(id, ascending ? "asc" : "desc").limit(sql.lit(start.perPage + 1));
  rowsQuery =
    start.after !== null
      ? rowsQuery.where(
          ascending ? sql<boolean>`${id} > ${start.after}` : sql<boolean>`${id} < ${start.after}`,
        )
      : rowsQuery.offset(start.skipped);
  const fetched = await rowsQuery.execute();
  // A cursor of another list (a workspace's id on the campaigns list) continues nothing here.
  if (typeof start.after === "string") {
    const first = fetched[0];
    // An empty page (a prefix sorting below the list's) compares with any row of the list.
    const listed =
      first !== undefined
        ? idOf(first)
        : (
            await query
              .clearSelect()
              .clearOrderBy()
              .select(sql<string>`${id}`.as("id"))
              .limit(1)
              .$castTo<{ id: string }>()
              .executeTakeFirst()
          )?.id;
    if (listed !== undefined && prefixOf(listed) !== prefixOf(start.after)) throw foreignCursor();
  }
  return pageFrom(fetched, start, total, key ? key.of : idOf);
}
