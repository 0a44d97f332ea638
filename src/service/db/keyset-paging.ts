import { type SelectQueryBuilder, sql } from "kysely";
import type { Pagination } from "../../contract/pagination.js";
import { invalidField } from "../domain/service-error.js";

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
}

/** What a cursor carries: the last id shown and how many rows the walk has shown so far. */
interface CursorState {
  after: string;
  seen: number;
}

function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify({ a: state.after, s: state.seen })).toString("base64url");
}

function decodeCursor(text: string): CursorState {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null && "a" in value && "s" in value) {
      const { a, s } = value;
      if (typeof a === "string" && Number.isSafeInteger(s) && Number(s) >= 0) {
        return { after: a, seen: Number(s) };
      }
    }
  } catch {
    // Falls through to the same answer as a well-formed but foreign value.
  }
  throw invalidField("cursor", "is not a next_cursor this list handed out; start without it");
}

/**
 * One page of `query` (already filtered, not ordered), newest first by `idColumn`, which must
 * be the table's time-sortable id selected as `id`. Without a cursor the page is found by
 * OFFSET; with one, by `idColumn < last id` (keyset), so a deep page costs what the first does.
 * Every page answers a `next_cursor`, so a client can switch from page numbers to the cursor.
 */
export async function paginate<DB, TB extends keyof DB, Row extends { id: string }>(
  query: SelectQueryBuilder<DB, TB, Row>,
  idColumn: string,
  request: PageRequest,
): Promise<Page<Row>> {
  const id = sql.ref(idColumn);
  const perPage = request.per_page;
  const cursor = request.cursor === undefined ? null : decodeCursor(request.cursor);
  const skipped = cursor ? cursor.seen : (request.page - 1) * perPage;

  const counted = await query
    .clearSelect()
    .clearOrderBy()
    .select(sql<number | string | bigint>`count(*)`.as("total"))
    // With the database type generic, Kysely cannot narrow the row; the select above fixes it.
    .$castTo<{ total: number | string | bigint }>()
    .executeTakeFirst();
  const total = Number(counted?.total ?? 0);

  // One row more than the page shows tells whether a next page exists without a second query.
  let rowsQuery = query.orderBy(id, "desc").limit(perPage + 1);
  rowsQuery = cursor
    ? rowsQuery.where(sql<boolean>`${id} < ${cursor.after}`)
    : rowsQuery.offset(skipped);
  const fetched = await rowsQuery.execute();
  const rows = fetched.slice(0, perPage);
  const last = rows.at(-1);
  const hasMore = fetched.length > perPage && last !== undefined;

  return {
    rows,
    pagination: {
      page: Math.floor(skipped / perPage) + 1,
      per_page: perPage,
      total,
      total_pages: Math.ceil(total / perPage),
      next_cursor: hasMore ? encodeCursor({ after: last.id, seen: skipped + rows.length }) : null,
    },
  };
}
