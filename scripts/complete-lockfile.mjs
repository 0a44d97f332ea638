// Completes package-lock.json with the optional platform packages (other systems' builds of
// biome, esbuild, rollup, …) that the registry mirror of this workplace does not serve. npm
// cannot record what it cannot fetch, and `npm ci` then refuses the lockfile as out of sync.
// Each missing optional dependency gets an entry with its version; npm skips it on a platform
// it does not fit (or fetches it where the registry has it). Run after changing dependencies.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages;
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] || packages[hoisted]) continue;
    const version = String(range).replace(/^[\^~=]/, "");
    packages[hoisted] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name),
    };
    added += 1;
  }
}

/** The os/cpu a platform package is built for, read from its name, so npm skips it elsewhere. */
function platformOf(name) {
  const os = [
    "android",
    "darwin",
    "freebsd",
    "linux",
    "netbsd",
    "openbsd",
    "sunos",
    "win32",
    "aix",
    "openharmony",
  ].find((o) => name.includes(o === "win32" ? "win32" : o));
  const cpu = [
    "arm64",
    "x64",
    "ia32",
    "arm",
    "loong64",
    "mips64el",
    "ppc64",
    "riscv64",
    "s390x",
  ].find((c) => name.includes(c));
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}) };
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: added ${added} optional platform entries\n`);
