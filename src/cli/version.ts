import { readFileSync } from "node:fs";

let version: string | undefined;

/** The package's version, read once from package.json (two levels above both src/cli and dist/cli). */
export function cliVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
  return version;
}
