import { rmSync } from "node:fs";
import autocannon from "autocannon";
import { describe, expect, it } from "vitest";
import { until } from "../crash/crash-support.js";
import { api } from "../helpers/campaign-world.js";
import { startServe } from "../helpers/serve.js";

/**
 * Bounded load on loopback against a real `reseller serve`: 50 connections sending a fixed
 * number of requests (about 10 seconds here) mixing contact lists, gets, upserts and CSV imports
 * on one workspace. A fixed count rather than a duration, so that every request sent has its
 * answer and the accounting is exact. No 5xx, no errors, and no lost write: the final contact
 * count is the number of distinct phones sent. Then rate
 * limiting: a token with a budget of 200 per 10 s gets exactly 200 answers and 429s after,
 * each with Retry-After, and is admitted again when Retry-After says.
 */

const connections = 50;
/** List, get and upsert requests over 49 connections; the 50th sends `imports` imports. */
const requests = 6000;
const imports = 40;
const phonePool = 20_000;

function phone(n: number): string {
  return `+49152${String(40_000_000 + n).padStart(8, "0")}`;
}

function figures(name: string, r: autocannon.Result): string {
  return `${name}: ${r.requests.sent} requests in ${r.duration.toFixed(1)} s, ${Math.round(r.requests.average)} rps, p99 ${r.latency.p99} ms, 2xx ${r["2xx"]}, non-2xx ${r.non2xx}, 5xx ${r["5xx"]}, errors ${r.errors}, timeouts ${r.timeouts}`;
}

describe("load", () => {
  it("serves a mixed load without a 5xx and without losing an upsert", async () => {
    const service = await startServe({ args: ["--rate-limit", "10000000/1m"] });
    try {
      const call = api(service.url, service.token);
      const ws = await call("POST", "/api/v1/workspaces", {
        name: "Load",
        contact_email: "load@example.test",
        send_invitation: false,
      });
      const base = `/api/v1/workspaces/${ws.id}`;
      const seed = await call("POST", `${base}/contacts`, { phone: phone(0), first_name: "Seed" });
      // Phones of every write the service acknowledged with a 2xx (a connection keeps the
      // phones of the request it has in flight in its context until the answer comes).
      const sent = new Set<string>([phone(0)]);
      type Context = { phones?: string[] };
      const acknowledge = (status: number, _body: string, context: object) => {
        if (status < 300) for (const p of (context as Context).phones ?? []) sent.add(p);
      };
      let next = 1;
      const upsert: autocannon.Request = {
        method: "POST",
        path: `${base}/contacts`,
        setupRequest: (request, context) => {
          // Three in four phones are new; the rest update one sent before.
          const n = next % 4 === 0 ? Math.floor(next / 2) : next;
          next += 1;
          const p = phone(n % phonePool);
          (context as Context).phones = [p];
          const body = JSON.stringify({ phone: p, first_name: `Load ${n}`, tags: [`t${n % 10}`] });
          return { ...request, body };
        },
        onResponse: acknowledge,
      };
      const headers = {
        authorization: `Bearer ${service.token}`,
        "content-type": "application/json",
      };

      const mixed = autocannon({
        url: service.url,
        connections: connections - 1,
        amount: requests,
        headers,
        requests: [
          { method: "GET", path: `${base}/contacts?per_page=50` },
          upsert,
          { method: "GET", path: `${base}/contacts/${seed.id}` },
          upsert,
          { method: "GET", path: `${base}/contacts?search=load&per_page=20` },
          upsert,
          { method: "GET", path: `${base}/tags` },
        ],
      });
      // One more connection imports small CSVs, five a second, of phones beyond the upserts'.
      let importRow = phonePool;
      const importing = autocannon({
        url: service.url,
        connections: 1,
        amount: imports,
        overallRate: 5,
        headers,
        requests: [
          {
            method: "POST",
            path: `${base}/contacts/import`,
            setupRequest: (r, context) => {
              const phones: string[] = [];
              for (let i = 0; i < 40; i++) {
                // Every tenth row repeats an upserted phone: an import updates it.
                phones.push(i % 10 === 9 ? phone(importRow % phonePool) : phone(importRow));
                importRow += 1;
              }
              (context as Context).phones = phones;
              const csv = Buffer.from(
                `phone,first_name\n${phones.map((p) => `${p},Imported`).join("\n")}\n`,
              );
              return { ...r, body: JSON.stringify({ csv: csv.toString("base64") }) };
            },
            onResponse: acknowledge,
          },
        ],
      });
      const [load, imported] = await Promise.all([mixed, importing]);
      console.log(figures("load (list/get/upsert)", load));
      console.log(figures("load (imports)", imported));

      for (const r of [load, imported]) {
        expect(r["5xx"]).toBe(0);
        expect(r.errors).toBe(0);
        expect(r.timeouts).toBe(0);
        expect(r.non2xx).toBe(0);
      }
      expect(load["2xx"]).toBe(requests);
      expect(imported["2xx"]).toBe(imports);

      // Every import finishes without a row error; then every phone sent is one contact.
      await until(
        "every import to finish",
        async () => {
          const list = (await fetch(`${service.url}${base}/contacts/imports?per_page=100`, {
            headers,
          }).then((r) => r.json())) as { data: { status: string; error_count: number }[] };
          if (list.data.some((i) => i.status === "queued" || i.status === "processing")) return;
          return list.data;
        },
        { timeoutMs: 60_000, everyMs: 200 },
      ).then((all) => {
        expect(all.length).toBe(imported["2xx"]);
        expect(all.every((i) => i.status === "completed" && i.error_count === 0)).toBe(true);
      });
      const page = (await fetch(`${service.url}${base}/contacts?per_page=1`, { headers }).then(
        (r) => r.json(),
      )) as { meta: { pagination: { total: number } } };
      console.log(
        `load: ${sent.size} distinct phones written, ${page.meta.pagination.total} contacts stored`,
      );
      expect(page.meta.pagination.total).toBe(sent.size);
    } finally {
      await service.stop();
      rmSync(service.dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("admits exactly the rate limit's budget, then 429 rate_limited with Retry-After", async () => {
    const budget = 200;
    const service = await startServe({ args: ["--rate-limit", `${budget}/10s`] });
    try {
      const url = `${service.url}/api/v1/plans`;
      const headers = { authorization: `Bearer ${service.token}` };
      const total = 300;
      const answers: { status: number; retryAfter: string | null; body: unknown }[] = [];
      let issued = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (issued < total) {
            issued += 1;
            const res = await fetch(url, { headers });
            answers.push({
              status: res.status,
              retryAfter: res.headers.get("retry-after"),
              body: await res.json(),
            });
          }
        }),
      );
      const elapsed = Date.now() - started;
      const admitted = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      console.log(
        `rate limit ${budget}/10s: ${answers.length} requests in ${elapsed} ms, ${admitted.length} admitted, ${refused.length} refused`,
      );
      expect(elapsed).toBeLessThan(10_000); // all inside one window
      expect(admitted.length).toBe(budget);
      expect(refused.length).toBe(total - budget);
      for (const a of refused) {
        expect(a.body).toMatchObject({ status: "error", error_code: "rate_limited" });
        expect(Number(a.retryAfter)).toBeGreaterThan(0);
        expect(Number(a.retryAfter)).toBeLessThanOrEqual(10);
      }

      // Admitted again once the window has passed, as Retry-After said.
      const retryAfter = Math.min(...refused.map((a) => Number(a.retryAfter)));
      const waitStarted = Date.now();
      await until(
        "the next window",
        async () => ((await fetch(url, { headers })).status === 200 ? true : undefined),
        { timeoutMs: 12_000, everyMs: 250 },
      );
      expect(Date.now() - waitStarted).toBeLessThanOrEqual((retryAfter + 1) * 1000);
    } finally {
      await service.stop();
      rmSync(service.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
