import { z } from "zod";
import { successEnvelope } from "./envelope.js";
import { thousands } from "./numbers.js";
import { paging } from "./vocabulary.js";

/**
 * A query parameter of digits only: `z.coerce.number` alone would take "1e1" as 10 and "0x10"
 * as 16, which no client means by a page number.
 */
const wholeNumber = (field: string, min: number, max: number | undefined, fallback: number) => {
  const error = `${field} must be a whole number ${max === undefined ? `of ${min} or more` : `from ${min} to ${thousands(max)}`}`;
  const number = z.coerce.number({ error }).int({ error }).min(min, { error });
  return z.preprocess(
    (value) => (typeof value === "string" && !/^\d+$/.test(value) ? Number.NaN : value),
    (max === undefined ? number : number.max(max, { error })).default(fallback),
  );
};

/**
 * The paging query of every list endpoint.
 *
 * Without `cursor`, `page` picks the page by position (OFFSET paging). With `cursor` (the
 * `next_cursor` of a previous page) the list continues after the last row that page showed,
 * by key, so the millionth row costs what the first does; `page` is then ignored, and
 * `meta.pagination.page` reports where the walk has got to (rows already walked / per_page,
 * plus one), which can drift when rows are added or removed during the walk.
 */
export const PageQuery = z.object({
  page: wholeNumber("page", 1, paging.maxPage, 1).describe(
    `Page number, from 1 to ${thousands(paging.maxPage)}; above that is a 422, never clamped (a larger one's row offset, and the page the answer reports, would no longer be exact). Ignored when \`cursor\` is given.`,
  ),
  per_page: wholeNumber("per_page", 1, paging.maxPerPage, paging.defaultPerPage).describe(
    `Rows per page, 1 to ${paging.maxPerPage}; out of range is a 422, never clamped.`,
  ),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe(
      "Opaque `meta.pagination.next_cursor` of the previous page: continues after its last row at constant cost. Overrides `page`.",
    ),
});
export type PageQuery = z.infer<typeof PageQuery>;

export const Pagination = z
  .object({
    page: z.number().int().min(1),
    per_page: z.number().int().min(1),
    total: z.number().int().min(0).describe("Rows matching the filters, on every page."),
    total_is_lower_bound: z
      .boolean()
      .optional()
      .describe(
        "Present on searches: true when more rows match than were counted, so `total` (and `total_pages`) mean at least that many, as in 1,000+; page on with `next_cursor` to see them all.",
      ),
    total_pages: z.number().int().min(0).describe("ceil(total / per_page); 0 for an empty list."),
    next_cursor: z
      .string()
      .nullable()
      .describe("Pass as `cursor` to get the following page; null on the last page."),
  })
  .meta({ id: "Pagination" });
export type Pagination = z.infer<typeof Pagination>;

/** `meta` of every list response. */
export const ListMeta = z.object({ pagination: Pagination }).meta({ id: "ListMeta" });
export type ListMeta = z.infer<typeof ListMeta>;

/** The success envelope of a list: an array of items and `meta.pagination`. */
export function listEnvelope<I extends z.ZodType>(item: I) {
  return successEnvelope(z.array(item), ListMeta);
}
