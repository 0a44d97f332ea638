import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { HttpMethod, QueryValue } from "../../../client/api-client.js";
import { usageError } from "../../cli-error.js";
import type { CommandResult, Handler } from "../../command-spec.js";
import type { Context } from "../../context.js";
import { cannotRead } from "../../input-file.js";
import { booleanOption, stringOption } from "../../options.js";
import { textView } from "../../output/view.js";
import { readStdin } from "../../read-stdin.js";

/** The request path: as given when it starts with /, otherwise under /api/v1/. */
export function apiPath(given: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given)) {
    throw usageError(
      `Give a path such as /api/v1/plans, not a URL: ${given}`,
      "The base URL comes from --base-url, RESELLER_BASE_URL or the profile.",
    );
  }
  return given.startsWith("/") ? given : `/api/v1/${given}`;
}

/** The request body of `--data`: JSON text, `@file`, or `-` for standard input. */
async function requestBody(ctx: Context, data: string | undefined): Promise<unknown> {
  if (data === undefined) return undefined;
  let text = data;
  let source = "--data";
  if (data === "-") {
    text = await readStdin(ctx.io.stdin);
    source = "--data - (standard input)";
  } else if (data.startsWith("@")) {
    const file = data.slice(1);
    source = `--data @${file}`;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw cannotRead(source, error);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
}

function idsIn(body: unknown): string[] {
  const data = (body as { data?: unknown } | null)?.data ?? body;
  const items = Array.isArray(data) ? data : [data];
  return items.flatMap((item) => {
    const id = (item as { id?: unknown } | null)?.id;
    return typeof id === "string" || typeof id === "number" ? [String(id)] : [];
  });
}

/** The body as printed: indented JSON at a terminal, one line piped, text as it came. */
function bodyResult(ctx: Context, body: unknown): CommandResult {
  if (body === null || body === undefined) return {};
  const text =
    typeof body === "string"
      ? body
      : ctx.isTTY
        ? JSON.stringify(body, null, 2)
        : JSON.stringify(body);
  return { data: body, view: textView(() => text, idsIn(body)) };
}

/**
 * Every item of a list, following `meta.pagination.next_cursor` from the first page. The path's
 * query is handed to the client as parameters, so it can drop `page` once it pages by cursor.
 */
async function allPages(ctx: Context, path: string): Promise<unknown[]> {
  const client = await ctx.client();
  const url = new URL(path, "http://path.invalid");
  const query: Record<string, QueryValue> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  const items: unknown[] = [];
  for await (const page of client.pages(url.pathname, z.unknown(), query)) {
    // Taken with z.unknown(): the answer may be any JSON, or none.
    const data = (page.raw as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) {
      throw usageError(
        `--paginate needs a list, but GET ${path} answered data that is not an array.`,
        "Run it without --paginate.",
      );
    }
    items.push(...data);
  }
  return items;
}

/** `reseller api <METHOD> <path>`: one raw request (or every page of a list). */
export const run: Handler = async (ctx, { args, options }) => {
  // Taken in any case (commander checks it against the choices likewise); sent upper-case.
  const method = (args[0] ?? "").toUpperCase() as HttpMethod;
  const path = apiPath(args[1] ?? "");
  const paginate = booleanOption(options, "paginate");
  const data = stringOption(options, "data");
  if (ctx.output === "csv") {
    // An answer of any shape has no columns to write; an empty file would pass for success.
    throw usageError(
      "--csv is for list commands; `api` prints the answer as JSON.",
      "Use the list command with --csv (e.g. `reseller workspaces list --csv`), or pipe `api` to jq.",
    );
  }
  if (paginate && method !== "GET") throw usageError("--paginate follows the pages of a GET.");
  if (data !== undefined && method === "GET") {
    throw usageError("--data needs POST, PUT, PATCH or DELETE: a GET sends no body.");
  }
  const body = await requestBody(ctx, data);
  if (paginate) return bodyResult(ctx, await allPages(ctx, path));
  const client = await ctx.client();
  const response = await client.send(method, path, body === undefined ? {} : { body });
  return bodyResult(ctx, response.json);
};
