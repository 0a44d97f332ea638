import { readFile } from "node:fs/promises";
import { CatalogueFile } from "../../contract/plans.js";

/** A `--plans` file that cannot be read or is not a catalogue: the operator's to fix. */
export class CatalogueFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CatalogueFileError";
  }
}

/** Reads and checks a `--plans FILE`, with an error that names the file and each bad field. */
export async function readCatalogueFile(path: string): Promise<CatalogueFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new CatalogueFileError(`cannot read plans file ${path}: ${(error as Error).message}`);
  }
  const parsed = CatalogueFile.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `  ${i.path.join(".") || "(file)"}: ${i.message}`)
      .join("\n");
    throw new CatalogueFileError(`plans file ${path} is not a valid catalogue:\n${problems}`);
  }
  return parsed.data;
}
