import { afterEach, describe, expect, it } from "vitest";
import { ciToken, listEnvelope } from "../../../../test/fixtures/workspaces.js";
import { runCli } from "../../../../test/helpers/cli.js";
import { jsonHeaders, mockApi } from "../../../../test/helpers/mock-api.js";

describe("reseller tokens list", () => {
  let api = mockApi();
  afterEach(() => {
    api.done();
    api = mockApi();
  });

  function stubList(query: Record<string, string>, body: object) {
    api.pool
      .intercept({ path: "/api/v1/tokens", method: "GET", query })
      .reply(200, body, { headers: jsonHeaders });
  }

  it("shows names, scopes and hints (never secrets) at a terminal", async () => {
    stubList({ page: "1", per_page: "20" }, listEnvelope([ciToken]));
    const run = await runCli(["tokens", "list"], {
      tty: true,
      env: { ...api.env, NO_COLOR: "1" },
      dispatcher: api.agent,
    });
    expect(run.code).toBe(0);
    const [header, row] = run.stdout.split("\n");
    expect(header).toMatch(/^ID\s+NAME\s+SCOPES\s+TOKEN\s+CREATED\s+LAST USED\s+EXPIRES$/);
    expect(row).toMatch(
      /^tok_02ci\s+ci\s+workspaces:read workspaces:write\s+rsk_…7a1b\s+2026-11-20\s+2026-11-22\s+never$/,
    );
  });

  it("prints tab-separated rows when piped and the service's array with --json", async () => {
    stubList({ page: "1", per_page: "20" }, listEnvelope([ciToken]));
    const piped = await runCli(["tokens", "list"], { env: api.env, dispatcher: api.agent });
    expect(piped.stdout).toBe(
      "tok_02ci\tci\tworkspaces:read workspaces:write\trsk_…7a1b\t2026-11-20T12:00:00Z\t2026-11-22T08:00:00Z\t\n",
    );
    stubList({ page: "1", per_page: "20" }, listEnvelope([ciToken]));
    const json = await runCli(["tokens", "list", "--json"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(JSON.parse(json.stdout)).toEqual([ciToken]);
  });

  it("walks every page by cursor with --all", async () => {
    stubList(
      { per_page: "20" },
      listEnvelope([ciToken], { total: 2, total_pages: 2, per_page: 1, next_cursor: "next" }),
    );
    stubList(
      { per_page: "20", cursor: "next" },
      listEnvelope([{ ...ciToken, id: "tok_01old" }], { page: 2, total: 2, total_pages: 2 }),
    );
    const run = await runCli(["tokens", "list", "--all", "-q"], {
      env: api.env,
      dispatcher: api.agent,
    });
    expect(run.stdout).toBe("tok_02ci\ntok_01old\n");
  });

  it("exits 3 for a workspace token, which may not manage reseller tokens", async () => {
    api.pool
      .intercept({ path: "/api/v1/tokens", method: "GET", query: { page: "1", per_page: "20" } })
      .reply(
        403,
        {
          status: "error",
          error_code: "insufficient_scope",
          message: "Only a reseller token may list reseller tokens.",
        },
        { headers: jsonHeaders },
      );
    const run = await runCli(["tokens", "list"], { env: api.env, dispatcher: api.agent });
    expect(run.code).toBe(3);
  });
});
