import { z } from "zod";
import { successEnvelope } from "./envelope.js";
import { paging } from "./vocabulary.js";

const wholeNumber = (field: string, range: string) =>
  z.coerce
    .number({ error: `${field} must be a whole number ${range}` })
    .int({ error: `${field} must be a whole number ${range}` });

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
  page: wholeNumber("page", "of 1 or more")
    .min(1, { error: "page must be a whole number of 1 or more" })
    .default(1)
    .describe("Page number, from 1. Ignored when `cursor` is given."),
  per_page: wholeNumber("per_page", `from 1 to ${paging.maxPerPage}`)
    .min(1, { error: `per_page must be a whole number from 1 to ${paging.maxPerPage}` })
    .max(paging.maxPerPage, {
      error: `per_page must be a whole number from 1 to ${paging.maxPerPage}`,
    })
    .default(paging.defaultPerPage)
    .describe(`Rows per page, 1 to ${paging.maxPerPage}; out of range is a 422, never clamped.`),
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
