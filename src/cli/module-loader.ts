import { fileURLToPath } from "node:url";
import type { Handler } from "./command-spec.js";

/**
 * Imports a module of the CLI by its path relative to this folder. The start-up bundle runs
 * from a V8 code cache, where `import()` is unavailable, so bin/ hands in its own importer.
 */
export type ModuleImporter = (path: string) => Promise<unknown>;

/** A handler module as the run bundle holds it: loaded on first use. */
export type HandlerLoader = () => Promise<{ run?: Handler }>;

const defaultImporter: ModuleImporter = (path) => import(path);

/**
 * Handlers compiled into the run bundle (dist/cli/run.cjs), keyed like CommandSpec.handler.
 * Empty when the CLI runs from its ESM files (tests); handlers that need the service's own
 * modules (ESM only) are never in it.
 */
let bundledHandlers: Readonly<Record<string, HandlerLoader>> = {};

/** Called once by the run bundle's entry with the handlers it holds. */
export function useBundledHandlers(handlers: Readonly<Record<string, HandlerLoader>>): void {
  bundledHandlers = handlers;
}

/** Absolute path of a module of the CLI, e.g. `commands/plans/list` → …/cli/commands/plans/list.js. */
export function cliModulePath(relative: string): string {
  return fileURLToPath(new URL(`./${relative}.js`, import.meta.url));
}

/** Loads a module of the CLI with the given importer (or the default one). */
export async function loadCliModule<T>(relative: string, importer?: ModuleImporter): Promise<T> {
  return (await (importer ?? defaultImporter)(cliModulePath(relative))) as T;
}

/** Loads a command's handler: from the run bundle when it holds it, else its ESM file. */
export async function loadHandler(handler: string, importer?: ModuleImporter): Promise<Handler> {
  const bundled = bundledHandlers[handler];
  const module = bundled
    ? await bundled()
    : await loadCliModule<{ run?: Handler }>(`commands/${handler}`, importer);
  if (typeof module.run !== "function") throw new Error(`commands/${handler} exports no run()`);
  return module.run;
}
