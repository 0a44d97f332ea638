import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceListResponse } from "../../src/contract/workspaces.js";
import { startTestApp, type TestApp } from "../helpers/test-app.js";

/** Paging rules shared by every list, checked on the workspace list. */
describe("paging of lists", () => {
  let t: TestApp;
  /** Workspace ids newest first, as lists order them. */
  let newestFirst: string[];

  beforeAll(async () => {
    t = await startTestApp();
    const ids: string[] = [];
    for (let i = 1; i <= 45; i++) ids.push(await t.createWorkspace({ name: `Client ${i}` }));
    newestFirst = ids.reverse();
  });
  afterAll(() => t.close());

  async function list(query: string) {
    const res = await t.request("GET", `/api/v1/workspaces${query}`);
    expect(res.statusCode).toBe(200);
    return WorkspaceListResponse.parse(res.json());
  }

  async function refused(query: string) {
    const res = await t.request("GET", `/api/v1/workspaces${query}`);
    expect(res.statusCode).toBe(422);
    return res.json() as { error_code: string; details: { field: string; message: string }[] };
  }

  it("answers page 1 of 20 rows by default, with totals", async () => {
    const body = await list("");
    expect(body.data).toHaveLength(20);
    expect(body.meta.pagination).toMatchObject({
      page: 1,
      per_page: 20,
      total: 45,
      total_pages: 3,
    });
    expect(body.meta.pagination.next_cursor).toEqual(expect.any(String));
  });

  it("answers the rows of a later page by position", async () => {
    const body = await list("?page=2&per_page=10");
    expect(body.data.map((w) => w.id)).toEqual(newestFirst.slice(10, 20));
    expect(body.meta.pagination).toMatchObject({ page: 2, per_page: 10, total_pages: 5 });
  });

  it("answers the last page with next_cursor null and a page past the end empty", async () => {
    const last = await list("?page=3");
    expect(last.data.map((w) => w.id)).toEqual(newestFirst.slice(40));
    expect(last.meta.pagination.next_cursor).toBeNull();
    const past = await list("?page=9");
    expect(past.data).toEqual([]);
    expect(past.meta.pagination).toMatchObject({ page: 9, total: 45, next_cursor: null });
  });

  it("accepts per_page from 1 to 100", async () => {
    expect((await list("?per_page=1")).data).toHaveLength(1);
    expect((await list("?per_page=100")).data).toHaveLength(45);
  });

  it("refuses per_page 101 or 0 with a 422 naming per_page, never clamping", async () => {
    for (const perPage of ["101", "0", "-5", "2.5", "ten"]) {
      const body = await refused(`?per_page=${perPage}`);
      expect(body.error_code).toBe("validation_failed");
      expect(body.details).toEqual([
        { field: "per_page", message: "per_page must be a whole number from 1 to 100" },
      ]);
    }
  });

  it("refuses a query parameter given twice with a 422 saying so, for numbers, names and cursors alike", async () => {
    for (const name of ["per_page", "status", "cursor"]) {
      const body = await refused(`?${name}=1&${name}=2`);
      expect(body.error_code).toBe("validation_failed");
      expect(body.details).toEqual([
        { field: name, message: "is given 2 times in the query; give it once" },
      ]);
    }
  });

  it("names page once when its number is past every limit (99999999999999999999)", async () => {
    const body = await refused("?page=99999999999999999999");
    expect(body.details).toEqual([{ field: "page", message: expect.any(String) }]);
  });

  it("refuses page 0 or a page that is not a whole number with a 422 naming page", async () => {
    for (const page of ["0", "-1", "x"]) {
      const body = await refused(`?page=${page}`);
      expect(body.details.map((d) => d.field)).toEqual(["page"]);
    }
  });

  it("takes page and per_page as plain digits only, not as 1e1, 0x10 or with spaces", async () => {
    for (const value of ["1e1", "0x10", "%205", "1.0"]) {
      expect((await refused(`?page=${value}`)).details).toEqual([
        { field: "page", message: "page must be a whole number from 1 to 1,000,000,000" },
      ]);
      expect((await refused(`?per_page=${value}`)).details.map((d) => d.field)).toEqual([
        "per_page",
      ]);
    }
    expect((await list("?page=02&per_page=010")).data).toHaveLength(10);
  });

  it("walks every row exactly once by cursor, in the same order as pages", async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?per_page=20&cursor=${encodeURIComponent(cursor)}` : "";
      const body = await list(query);
      seen.push(...body.data.map((w) => w.id));
      pages.push(body.meta.pagination.page);
      cursor = body.meta.pagination.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(newestFirst);
    expect(pages).toEqual([1, 2, 3]);
  });

  it("ignores page when a cursor is given and reports where the walk has got to", async () => {
    const first = await list("?per_page=15");
    const cursor = encodeURIComponent(first.meta.pagination.next_cursor ?? "");
    const second = await list(`?per_page=15&page=3&cursor=${cursor}`);
    expect(second.data.map((w) => w.id)).toEqual(newestFirst.slice(15, 30));
    expect(second.meta.pagination.page).toBe(2);
  });

  it("continues a cursor walk after rows are added, without repeating or skipping", async () => {
    const first = await list("?per_page=20");
    const added = await t.createWorkspace({ name: "Late arrival" });
    const cursor = encodeURIComponent(first.meta.pagination.next_cursor ?? "");
    const second = await list(`?per_page=20&cursor=${cursor}`);
    expect(second.data.map((w) => w.id)).toEqual(newestFirst.slice(20, 40));
    expect(second.meta.pagination.total).toBe(46);
    newestFirst.unshift(added);
  });

  it("refuses a cursor it did not hand out with a 422 naming cursor", async () => {
    for (const cursor of ["garbage", Buffer.from('{"a":1}').toString("base64url")]) {
      const body = await refused(`?cursor=${cursor}`);
      expect(body.details.map((d) => d.field)).toEqual(["cursor"]);
    }
  });

  it("refuses a forged cursor whose key no row can have (past an integer key, or holding NUL) with a 422", async () => {
    const forged = (after: unknown) =>
      Buffer.from(JSON.stringify({ a: after, s: 20 })).toString("base64url");
    const contacts = `/api/v1/workspaces/${newestFirst[0]}/contacts`;
    for (const [path, after] of [
      [contacts, 2 ** 31],
      [contacts, 2 ** 40],
      // A key in the clear, as versions before sealed cursors handed out: refused, not followed.
      [contacts, 1],
      [`/api/v1/workspaces/${newestFirst[0]}/tags`, 1],
      ["/api/v1/workspaces", "ws_\u0000"],
    ] as const) {
      const res = await t.request("GET", `${path}?cursor=${forged(after)}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(["cursor"]);
    }
  });

  it("refuses a cursor holding no id, or another list's, with a 422 naming cursor", async () => {
    const forged = (after: string) =>
      Buffer.from(JSON.stringify({ a: after, s: 1 })).toString("base64url");
    const workspaceCursor = (await list("?per_page=1")).meta.pagination.next_cursor ?? "";
    await t.request("POST", `/api/v1/webhook-endpoints`, {
      body: { url: "https://hooks.example.com/a", events: ["*"] },
    });
    for (const [path, cursor] of [
      ["/api/v1/workspaces", forged("';DROP TABLE workspaces;--")],
      ["/api/v1/workspaces", forged("ws_01")],
      ["/api/v1/webhook-endpoints", workspaceCursor],
      // A prefix sorting below the list's reads no row: refused all the same.
      ["/api/v1/workspaces", forged("cmp_01jd3f0000000000000000000a")],
    ] as const) {
      const res = await t.request("GET", `${path}?cursor=${cursor}`);
      expect(res.statusCode, `${path} ${cursor}`).toBe(422);
      expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(["cursor"]);
    }
  });

  it("seals the cursors of contacts and tags, whose key counts rows of every workspace", async () => {
    const [mine, theirs] = newestFirst as [string, string];
    const add = (workspace: string, phone: string, tags: string[] = []) =>
      t.request("POST", `/api/v1/workspaces/${workspace}/contacts`, { body: { phone, tags } });
    await add(mine, "+4915112340001", ["a"]);
    await add(mine, "+4915112340002", ["b"]);
    for (let i = 0; i < 5; i++) await add(theirs, `+4915112341${String(i).padStart(3, "0")}`);
    await add(mine, "+4915112340003", ["c"]);
    for (const list of ["contacts", "tags"]) {
      const path = `/api/v1/workspaces/${mine}/${list}`;
      const cursors: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.request(
          "GET",
          `${path}?per_page=1${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(res.statusCode).toBe(200);
        cursor = res.json().meta.pagination.next_cursor;
        if (cursor) cursors.push(cursor);
      } while (cursor);
      expect(cursors).toHaveLength(2);
      for (const sealed of cursors) {
        expect(sealed).toMatch(/^[A-Za-z0-9_-]{22}$/);
        // Nothing in it reads as the row's key (JSON, or a number in the clear).
        expect(() => JSON.parse(Buffer.from(sealed, "base64url").toString("utf8"))).toThrow();
      }
    }
  });

  it("keeps the status filter while walking by cursor", async () => {
    const suspended = [newestFirst[3], newestFirst[7], newestFirst[30]] as string[];
    for (const id of suspended) {
      await t.request("PATCH", `/api/v1/workspaces/${id}`, { body: { status: "suspended" } });
    }
    const first = await list("?status=suspended&per_page=2");
    expect(first.meta.pagination).toMatchObject({ total: 3, total_pages: 2 });
    const cursor = encodeURIComponent(first.meta.pagination.next_cursor ?? "");
    const second = await list(`?status=suspended&per_page=2&cursor=${cursor}`);
    expect([...first.data, ...second.data].map((w) => w.id)).toEqual(suspended);
    expect(second.meta.pagination.next_cursor).toBeNull();
  });

  it("reports zero pages for an empty list", async () => {
    const body = await list("?status=archived");
    expect(body.data).toEqual([]);
    expect(body.meta.pagination).toEqual({
      page: 1,
      per_page: 20,
      total: 0,
      total_pages: 0,
      next_cursor: null,
    });
  });
});
