import type { z } from "zod";
import type { ApiClient, QueryValue } from "../client/api-client.js";
import type { Pagination } from "../contract/pagination.js";
import { pagingOptions } from "./options.js";

type Options = Readonly<Record<string, unknown>>;

/** The parsed shape of every list envelope. */
interface ListBody<Item> {
  data: Item[];
  meta: { pagination: Pagination };
}

/** One page, or every page, of a list: parsed rows, the service's raw items, and a note. */
export interface FetchedList<Item> {
  /** Parsed items, for views. */
  rows: Item[];
  /** The items exactly as the service sent them, for `--json` (an array). */
  data: unknown[];
  /** Where this page stands in the whole list, for stderr; undefined when nothing is left out. */
  message: string | undefined;
}

/**
 * Fetches a list the way every list command does: `--page`/`--per-page` pick one page, `--all`
 * follows `next_cursor` from the first page to the last. Extra query parameters (filters) are
 * sent with every page.
 */
export async function fetchList<Item>(
  client: ApiClient,
  path: string,
  schema: z.ZodType<ListBody<Item>>,
  options: Options,
  query: Record<string, QueryValue> = {},
  noun = "items",
): Promise<FetchedList<Item>> {
  const { page, perPage, all } = pagingOptions(options);
  if (all) {
    const rows: Item[] = [];
    const data: unknown[] = [];
    for await (const response of client.pages(path, schema, { ...query, per_page: perPage })) {
      rows.push(...response.body.data);
      data.push(...(response.raw.data as unknown[]));
    }
    return { rows, data, message: undefined };
  }
  const response = await client.get(path, schema, { ...query, page, per_page: perPage });
  return {
    rows: response.body.data,
    data: response.raw.data as unknown[],
    message: pageNote(response.body.meta.pagination, noun),
  };
}

/**
 * "Page 1 of 7 (134 workspaces): --page 2 for the next, --all for every page." A total the
 * service counted only up to a bound (a broad search) reads "Page 1 of 50+ (1000+ contacts)".
 */
export function pageNote(pagination: Pagination, noun: string): string | undefined {
  const { page, total, total_pages: pages, total_is_lower_bound: atLeast } = pagination;
  if (pages <= 1 && page <= 1 && !atLeast) return undefined;
  const more = atLeast ? "+" : "";
  // A page that shows rows is never past total_pages, even a lower bound's (the service raises it).
  if (page > pages) {
    return `Page ${page} is past the last page (${pages}${more}; ${total}${more} ${noun} in all).`;
  }
  const next = page < pages || atLeast ? `--page ${page + 1} for the next, ` : "";
  return `Page ${page} of ${pages}${more} (${total}${more} ${noun}): ${next}--all for every page.`;
}
