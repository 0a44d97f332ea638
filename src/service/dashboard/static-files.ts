import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ownValue } from "../../contract/own-value.js";

const require = createRequire(import.meta.url);

/**
 * The browser libraries the dashboard loads, served from the package's own dependencies so it
 * works offline and needs no build step: name in the URL -> file inside node_modules.
 */
const vendorFiles: Record<string, string> = {
  "preact.js": "preact/dist/preact.module.js",
  "preact-hooks.js": "preact/hooks/dist/hooks.module.js",
  "htm.js": "htm/dist/htm.module.js",
  "uplot.js": "uplot/dist/uPlot.esm.js",
  "uplot.css": "uplot/dist/uPlot.min.css",
};

/** Bare import specifiers the dashboard's modules use, for the page's import map. */
export const importMap = {
  imports: {
    preact: "/dashboard/vendor/preact.js",
    "preact/hooks": "/dashboard/vendor/preact-hooks.js",
    htm: "/dashboard/vendor/htm.js",
    uplot: "/dashboard/vendor/uplot.js",
  },
};

// src/service/dashboard and dist/service/dashboard sit at the same depth; the browser files are
// plain ES modules kept in src (package.json "files" ships them), never compiled.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const publicDir = join(packageRoot, "src", "service", "dashboard", "public");

/**
 * The path of a file inside a dependency even when its `exports` do not list it: from the
 * package's entry point up to the folder named after the package.
 */
function resolvePackageFile(spec: string): string {
  const [pkg = "", ...rest] = spec.split("/");
  let dir = dirname(require.resolve(pkg));
  while (!existsSync(join(dir, "package.json")) || !dir.endsWith(pkg)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${pkg} package`);
    dir = parent;
  }
  return join(dir, ...rest);
}

const contentTypes: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** A static file the dashboard serves, with its content type. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
}

function typeOf(name: string): string {
  return ownValue(contentTypes, name.split(".").pop() ?? "") ?? "application/octet-stream";
}

const cache = new Map<string, StaticFile>();

async function load(key: string, path: string, name: string): Promise<StaticFile> {
  const known = cache.get(key);
  if (known) return known;
  const file = { body: await readFile(path), contentType: typeOf(name) };
  cache.set(key, file);
  return file;
}

/** A vendored library file by its URL name, or null for a name not on the list. */
export async function vendorFile(name: string): Promise<StaticFile | null> {
  const module = ownValue(vendorFiles, name);
  if (module === undefined) return null;
  return load(`vendor:${name}`, resolvePackageFile(module), name);
}

/** One of the dashboard's own browser files (flat names only, so no path escapes the folder). */
export async function publicFile(name: string): Promise<StaticFile | null> {
  if (!/^[a-z0-9-]+\.(js|css|svg)$/.test(name)) return null;
  try {
    return await load(`public:${name}`, join(publicDir, name), name);
  } catch {
    return null;
  }
}
