// Bundles the CLI into two CommonJS files, each loaded through a V8 code cache by bin/:
// - start.cjs: main, program, command declarations, commander: all `--help` needs;
// - run.cjs: what runs a parsed command (context, client, output) and every handler with its
//   packages (zod, undici, conf, …), each evaluated only when a command reaches it.
// Node 20 loads one CJS file with a code cache several times faster than a graph of hundreds of
// ESM files. Handlers that import the service (serve, serve exec, admin) stay ESM files in dist/,
// imported by path (src/cli/module-loader.ts). (Node 22's module.enableCompileCache would do the
// cache part.)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = path.join(root, "dist", "cli");

// commander loads child_process up front, only for executable subcommands, which this CLI never
// uses; loading it lazily spares every start Node's child-process internals.
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.namespace === "lazy-builtin"
        ? { path: "node:child_process", external: true }
        : { path: "child_process", namespace: "lazy-builtin" },
    );
    builder.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, () => ({
      contents:
        'module.exports = new Proxy({}, { get: (_t, key) => require("node:child_process")[key] });',
      loader: "js",
    }));
  },
};

// chalk detects the terminal's colours (loading Node's tty) as it loads; src/cli/output/paint.ts
// uses it only when colour is on, so its import is bound to a getter that loads it on first use.
const lazyChalk = {
  name: "lazy-chalk",
  setup(builder) {
    builder.onResolve({ filter: /^chalk$/ }, (args) =>
      args.namespace === "lazy-chalk" ? undefined : { path: "chalk", namespace: "lazy-chalk" },
    );
    builder.onLoad({ filter: /.*/, namespace: "lazy-chalk" }, () => ({
      contents: 'module.exports = { get Chalk() { return require("chalk").Chalk; } };',
      loader: "js",
      resolveDir: root,
    }));
  },
};

// undici's HTTP/2 client requires node:http2 (with tls, crypto and more) as it loads; the CLI
// speaks HTTP/1.1 only (undici's default, allowH2 unset), so the run bundle gets an empty stand-in.
const noHttp2 = {
  name: "no-http2",
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?http2$/ }, () => ({
      path: "http2",
      namespace: "no-http2",
    }));
    builder.onLoad({ filter: /.*/, namespace: "no-http2" }, () => ({
      contents:
        'module.exports = { constants: {}, connect() { throw new Error("HTTP/2 is not used by the CLI"); } };',
      loader: "js",
    }));
  },
};

// undici requires node:http for two values only, and node:assert for plain `assert(value)` calls;
// loading them compiles eleven of Node's own modules (the HTTP server and agent, the assertion
// error's diff printer), several milliseconds of every command. Inside undici they are replaced:
// - http.maxHeaderSize, Node's --max-http-header-size (16 KiB unless given), read from the flags;
// - http.IncomingMessage, compared with a request body's constructor to detach the socket of a
//   server's request streamed on; the CLI never sends one, so a class nothing is made of;
// - assert(value, message), throwing the AssertionError's code and message without its diff.
const undiciBuiltins = {
  http: `const flag = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\\s+/)]
  .map((arg) => /^--max-http-header-size=(\\d+)$/.exec(arg))
  .findLast(Boolean);
module.exports = { maxHeaderSize: flag ? Number(flag[1]) : 16384, IncomingMessage: class IncomingMessage {} };`,
  assert: `module.exports = function assert(value, message) {
  if (value) return;
  if (message instanceof Error) throw message;
  const error = new Error(message ?? "The expression evaluated to a falsy value");
  error.name = "AssertionError";
  error.code = "ERR_ASSERTION";
  throw error;
};`,
};
const undiciStandIns = {
  name: "undici-stand-ins",
  setup(builder) {
    builder.onResolve({ filter: /^(node:)?(http|assert)$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer)
        ? { path: args.path.replace(/^node:/, ""), namespace: "undici-stand-in" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "undici-stand-in" }, (args) => ({
      contents: undiciBuiltins[args.path],
      loader: "js",
    }));
  },
};

// zod exports every locale's error messages (over 250 KB of the run bundle) as `z.locales`; it
// sets English itself and the CLI sets none, so the bundle keeps English only.
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: path.join(path.dirname(args.importer), "..", "locales"), namespace: "zod-en" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "zod-en" }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
      resolveDir: args.path,
    }));
  },
};

// `import { z } from "zod"` binds z to a namespace object zod re-exports, which the bundle must
// then build at load (a getter per export, several hundred); importing the namespace straight
// from zod's own module lets esbuild turn each `z.object` into a direct reference instead.
const zodExternal = path.join(root, "node_modules", "zod", "v4", "classic", "external.js");
const zodDirect = {
  name: "zod-direct",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/](cli|client|contract)[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes('import { z } from "zod";')) return undefined;
      return {
        contents: text.replace(
          'import { z } from "zod";',
          `import * as z from ${JSON.stringify(zodExternal)};`,
        ),
        loader: "js",
      };
    });
  },
};

// src/cli/version.ts reads package.json on every start (`--version`, the User-Agent); the
// bundles are built from that same package.json, so they carry its version as a constant.
const packageVersion = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version;
const versionAtBuild = {
  name: "version-at-build",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/]cli[\\/]version\.js$/ }, () => ({
      contents: `export function cliVersion() {\n  return ${JSON.stringify(packageVersion)};\n}\n`,
      loader: "js",
    }));
  },
};

/** Options shared by both bundles; each sits in dist/cli, where import.meta.url pointed. */
function cjsBundle(name, entry, plugins = []) {
  return build({
    entryPoints: [entry],
    outfile: path.join(cliDir, `${name}.cjs`),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minify: process.env.BUNDLE_MINIFY !== "0",
    // ASCII only (non-ASCII escaped, licence comments in <name>.cjs.LEGAL.txt), so bin/ can read
    // the file as latin1, twice as fast as decoding UTF-8.
    charset: "ascii",
    legalComments: "external",
    logLevel: "warning",
    // The bundle's own URL, computed only when something asks (module-loader, to import the ESM
    // handlers): pathToFileURL costs every other start.
    define: { "import.meta.url": "__bundle.url" },
    // Written as the function Node's Module.wrap would make of it, so bin/ compiles the file's
    // text as read, without first copying megabytes into a wrapped string.
    banner: {
      js: '(function (exports, require, module, __filename, __dirname) {const __bundle = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
    },
    footer: { js: "})" },
    plugins,
  });
}

/** Every handler named in the command tree, e.g. `plans/list`. */
async function handlerNames() {
  const { commandTree } = await import(pathToFileURL(path.join(cliDir, "commands", "tree.js")));
  const names = [];
  const visit = (spec) => {
    if (spec.commands) spec.commands.forEach(visit);
    else {
      names.push(spec.handler);
      (spec.subcommands ?? []).forEach(visit);
    }
  };
  commandTree.forEach(visit);
  return names;
}

/** Handlers whose modules reach the service's code: those stay ESM (native modules, fastify). */
async function serviceHandlers(names) {
  const result = await build({
    entryPoints: names.map((n) => path.join(cliDir, "commands", `${n}.js`)),
    outdir: path.join(cliDir, "_probe"),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "silent",
  });
  const needing = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    if (!output.entryPoint) continue;
    if (Object.keys(output.inputs).some((input) => input.includes("dist/service/"))) {
      const relative = path.relative(
        path.join(cliDir, "commands"),
        path.join(root, output.entryPoint),
      );
      needing.add(relative.replace(/\\/g, "/").replace(/\.js$/, ""));
    }
  }
  return needing;
}

await cjsBundle("start", path.join(cliDir, "main.js"), [lazyChildProcess, versionAtBuild]);

const names = await handlerNames();
const esmOnly = await serviceHandlers(names);
const entry = path.join(cliDir, "run-entry.js");
// zod compiles each object schema to a function (new Function) on its first parse, which pays
// off over many parses; a command parses one or two responses, and that code is in no cache.
// Imported first, so the setting is in place before any schema is built.
const zodSetup = path.join(cliDir, "run-zod-jitless.js");
writeFileSync(
  zodSetup,
  `import { config } from ${JSON.stringify(zodExternal)};\nconfig({ jitless: true });\n`,
);
writeFileSync(
  entry,
  [
    'import "./run-zod-jitless.js";',
    'import { useBundledHandlers } from "./module-loader.js";',
    'export { runCommand } from "./run-command.js";',
    'export { reportError } from "./report-error.js";',
    "useBundledHandlers({",
    ...names
      .filter((n) => !esmOnly.has(n))
      .map((n) => `  ${JSON.stringify(n)}: () => import("./commands/${n}.js"),`),
    "});",
    "",
  ].join("\n"),
);
await cjsBundle("run", entry, [
  lazyChildProcess,
  noHttp2,
  lazyChalk,
  undiciStandIns,
  zodEnglishOnly,
  zodDirect,
  versionAtBuild,
]);
rmSync(entry);
rmSync(zodSetup);

for (const name of ["start", "run"]) {
  const text = readFileSync(path.join(cliDir, `${name}.cjs`), "utf8");
  const at = [...text].findIndex((char) => char.charCodeAt(0) > 0x7f);
  if (at >= 0)
    throw new Error(`dist/cli/${name}.cjs is not ASCII at ${at}: bin/ reads it as latin1`);
}

// Two runs write the code caches next to the bundles (see bin/reseller.cjs): `--help` the
// start-up one, and `plans list --json` against a throwaway local service the run one, so the
// cache holds what a command compiles from start to end (context, client, undici and its HTTP
// parser's glue, zod's parsing, the JSON output). Should the service not start, the command runs
// against a closed port, which still compiles all but the response's path.
for (const name of ["start", "run"]) rmSync(path.join(cliDir, `${name}.cache`), { force: true });
const bin = path.join(root, "bin", "reseller.cjs");
execFileSync(process.execPath, [bin, "--help"], { stdio: "ignore" });
const scratch = mkdtempSync(path.join(tmpdir(), "reseller-bundle-"));
const token = "rsk_code_cache_priming_000001";
// Neither the caller's profile, workspace or base URL nor its database: only what is set here.
const primingEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !key.startsWith("RESELLER_") && key !== "DATABASE_URL",
  ),
);
const service = spawn(
  process.execPath,
  [bin, "serve", "--port", "0", "--db", path.join(scratch, "prime.db"), "--log-level", "silent"],
  {
    env: { ...primingEnv, RESELLER_BOOTSTRAP_TOKEN: token, RESELLER_CONFIG_DIR: scratch },
    stdio: ["ignore", "ignore", "pipe"],
  },
);
const serviceUrl = await new Promise((resolve) => {
  let text = "";
  const timer = setTimeout(() => resolve(null), 30_000);
  service.stderr.on("data", (chunk) => {
    text += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(text);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  service.on("exit", () => {
    clearTimeout(timer);
    resolve(null);
  });
});
spawnSync(process.execPath, [bin, "plans", "list", "--json"], {
  stdio: "ignore",
  env: {
    ...primingEnv,
    RESELLER_BASE_URL: serviceUrl ?? "http://127.0.0.1:9",
    RESELLER_TOKEN: token,
    RESELLER_CONFIG_DIR: scratch,
  },
});
// Killed outright: the service loaded the run bundle too, and a clean exit would write its own
// (serve-shaped) code cache over the command's.
service.kill("SIGKILL");
await new Promise((resolve) =>
  service.exitCode === null ? service.once("exit", resolve) : resolve(),
);
rmSync(scratch, { recursive: true, force: true });
if (!serviceUrl)
  console.warn("bundle-cli: the local service did not start; run cache primed without it");
