import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "csv-stringify/sync";
import { exportHeader, exportRow } from "../../../contract/contact-csv.js";
import { type Contact, ContactListResponse } from "../../../contract/contacts.js";
import { usageError } from "../../cli-error.js";
import type { Handler } from "../../command-spec.js";
import { booleanOption, stringOption } from "../../options.js";
import { counted } from "../../output/counts.js";
import { checkOutputFile, openOutputFile } from "../../output/output-file.js";
import { privateTempDir } from "../../private-temp-dir.js";
import { workspacePath } from "../workspaces/workspace-path.js";

/**
 * `reseller contacts export`: every contact, walked by cursor, as CSV in the import's layout,
 * oldest first, so importing the file creates the contacts in the same order and a second
 * export is identical. The custom-field columns are known only after the last page, so pages
 * go to a temporary file first and the CSV is written from it, last page first: memory stays
 * flat at any size. With --json the same contacts, in the same order, are one JSON array of the
 * service's records as sent; with --quiet, their ids.
 */
export const run: Handler = async (ctx, { options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  // Checked first: a file that cannot be written is said before the contacts are fetched. It is
  // opened (emptied) only once every page has arrived, so a failed export (a 401, the network)
  // leaves the previous file, last night's backup, as it was. `--output -` is stdout, where the
  // export goes without it.
  // Excel reads a CSV without a byte order mark in the machine's legacy encoding (Zoë as ZoÃ«);
  // the import takes the mark off again.
  const bom = booleanOption(options, "bom");
  if (bom && ctx.output === "json") throw usageError("--bom is for CSV; --json writes JSON.");
  const given = stringOption(options, "output");
  const output = given === "-" ? undefined : given;
  if (output !== undefined) await checkOutputFile(output, "--output");
  let out: FileHandle | null = null;
  // The pages wait in a private folder, deleted even by Ctrl-C: they are other people's data.
  const dir = privateTempDir("reseller-export-");
  const spool = join(dir.path, "contacts.ndjson");
  const keys = new Set<string>();
  const pages: { at: number; bytes: number }[] = [];
  let count = 0;
  try {
    const writer = await open(spool, "w");
    try {
      let at = 0;
      const walk = client.pages(workspacePath(workspaceId, "/contacts"), ContactListResponse, {
        per_page: 100,
        tag: stringOption(options, "tag"),
        opt_in_status: stringOption(options, "optInStatus"),
      });
      for await (const page of walk) {
        let lines = "";
        const sent = page.raw.data as unknown[];
        page.body.data.forEach((contact, index) => {
          for (const key of Object.keys(contact.custom_fields)) keys.add(key);
          // The record as the service sent it: --json prints it whole.
          lines += `${JSON.stringify(sent[index])}\n`;
          count += 1;
        });
        const bytes = Buffer.from(lines);
        await writer.write(bytes);
        pages.push({ at, bytes: bytes.length });
        at += bytes.length;
      }
    } finally {
      await writer.close();
    }
    const customKeys = [...keys].sort();
    if (output !== undefined) out = await openOutputFile(output, "--output");
    const write = async (text: string) => {
      if (out) await out.write(text);
      else if (!ctx.io.stdout.write(text)) await new Promise((r) => ctx.io.stdout.once("drain", r));
    };
    const json = ctx.output === "json";
    // --quiet prints ids only, as everywhere: the contacts' ids, in the file's order. A file
    // named by --output is the export itself, which --quiet does not change.
    const quiet = ctx.output === "quiet" && out === null;
    const reader = await open(spool, "r");
    try {
      if (!quiet) {
        await write(json ? "[" : `${bom ? "\ufeff" : ""}${stringify([exportHeader(customKeys)])}`);
      }
      let first = true;
      for (const page of pages.reverse()) {
        const buffer = Buffer.alloc(page.bytes);
        await reader.read(buffer, 0, page.bytes, page.at);
        const lines = buffer
          .toString("utf8")
          .split("\n")
          .filter((line) => line !== "")
          .reverse();
        if (lines.length === 0) continue;
        if (quiet) {
          await write(lines.map((line) => `${(JSON.parse(line) as Contact).id}\n`).join(""));
        } else if (json) {
          await write(`${first ? "" : ","}${lines.join(",")}`);
        } else {
          await write(
            stringify(lines.map((line) => exportRow(JSON.parse(line) as Contact, customKeys))),
          );
        }
        first = false;
      }
      if (json) await write("]\n");
    } finally {
      await reader.close();
    }
    return {
      message: `Exported ${counted(count, "contact")}${output ? ` to ${output}` : ""}.`,
    };
  } finally {
    await out?.close();
    await dir.remove();
  }
};
