import { ContactImportResponse } from "../../../contract/contact-imports.js";
import type { Handler } from "../../command-spec.js";
import { stringOption } from "../../options.js";
import { checkOutputFile, openOutputFile } from "../../output/output-file.js";
import { workspacePath } from "../workspaces/workspace-path.js";
import { importSummary, importView } from "./contact-format.js";
import { writeImportErrors } from "./import-errors.js";

/** `reseller contacts imports get <import_id>`: status, counts and the first row errors. */
export const run: Handler = async (ctx, { args, options }) => {
  const workspaceId = await ctx.workspaceId();
  const client = await ctx.client();
  const importId = args[0] ?? "";
  const errorsFile = stringOption(options, "errors");
  if (errorsFile !== undefined) await checkOutputFile(errorsFile, "--errors");
  const response = await client.get(
    workspacePath(workspaceId, `/contacts/imports/${encodeURIComponent(importId)}`),
    ContactImportResponse,
  );
  const imported = response.body.data;
  if (errorsFile !== undefined) {
    const handle = await openOutputFile(errorsFile, "--errors");
    await writeImportErrors(client, workspaceId, imported.id, handle);
  }
  return {
    data: response.raw.data,
    view: importView(imported),
    message: importSummary(imported, errorsFile, workspaceId),
  };
};
