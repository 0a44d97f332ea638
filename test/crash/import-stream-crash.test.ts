import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/campaign-world.js";
import { type ServedService, startServe } from "../helpers/serve.js";
import {
  countsOf,
  finished,
  type ImportRecord,
  importedState,
  importOf,
  largeCsv,
  startImport,
  until,
} from "./crash-support.js";

/**
 * The streamed upload (`Content-Type: text/csv`, as `reseller contacts import` sends it) of a
 * 100,000-row file, killed part-way through the import and resumed by a new process: the
 * outcome must be that of the same file sent base64 in JSON and imported without interruption.
 */

const rows = 100_000;
const csv = largeCsv(rows);
const args = ["--review-delay", "0"];

async function startStreamedImport(url: string, token: string) {
  const ws = await api(url, token)("POST", "/api/v1/workspaces", {
    name: "Import crash",
    contact_email: "crash@example.test",
    send_invitation: false,
  });
  const base = `/api/v1/workspaces/${ws.id}`;
  const response = await fetch(`${url}${base}/contacts/import?duplicate_handling=update`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
    body: csv,
  });
  const json = (await response.json()) as { data: { id: string } };
  expect(response.status, JSON.stringify(json)).toBe(202);
  return { workspaceId: ws.id, importPath: `${base}/contacts/imports/${json.data.id}` };
}

describe("crash safety of streamed contact imports", () => {
  let reference: {
    counts: ReturnType<typeof countsOf>;
    state: ReturnType<typeof importedState>;
    errors: unknown[];
  };
  const services: ServedService[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const service of services) await service.stop();
    for (const dir of [...dirs, ...services.map((s) => s.dir)]) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  beforeAll(async () => {
    const service = await startServe({ args });
    services.push(service);
    const { workspaceId, importPath } = await startImport(service.url, service.token, csv);
    const record = await finished(service.url, service.token, importPath);
    reference = {
      counts: countsOf(record),
      state: importedState(service.dbFile, workspaceId, importPath.split("/").at(-1) ?? ""),
      errors: record.errors,
    };
    expect(reference.counts).toMatchObject({ status: "completed", total_rows: rows });
  }, 120_000);

  it("resumes a streamed import killed with SIGKILL midway: the outcome of an uninterrupted JSON upload", async () => {
    const first = await startServe({ args });
    const { workspaceId, importPath } = await startStreamedImport(first.url, first.token);
    const read = importOf(first.url, first.token, importPath);
    const before = await until(
      "the import to be between 10% and 90% done",
      async () => {
        const record: ImportRecord = await read();
        if (record.processed_rows > rows * 0.9 || record.status === "completed") {
          throw new Error(`the import got past 90% between two polls: ${record.processed_rows}`);
        }
        return record.processed_rows >= rows * 0.1 ? record : undefined;
      },
      { timeoutMs: 60_000, everyMs: 10 },
    );
    first.process.kill("SIGKILL");
    await first.process.catch(() => {});

    const second = await startServe({ args, dbFile: first.dbFile, token: first.token });
    services.push(second);
    dirs.push(first.dir);
    const record = await finished(second.url, second.token, importPath);
    console.log(`streamed import crash: killed at ${before.processed_rows}/${rows} rows`);
    expect(countsOf(record)).toEqual(reference.counts);
    expect(record.errors).toEqual(reference.errors);
    expect(importedState(second.dbFile, workspaceId, importPath.split("/").at(-1) ?? "")).toEqual(
      reference.state,
    );
  }, 150_000);
});
