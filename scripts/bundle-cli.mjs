// Bundles the CLI into two CommonJS files, each loaded through a V8 code cache by bin/:
// - start.cjs: main, program, command declarations, commander: all `--help` needs;
// - run.cjs: what runs a parsed command (context, client, output) and every handler with its
//   packages (zod, undici, conf, …), each evaluated only when a command reaches it.
// Node 20 loads one CJS file with a code cache several times faster than a graph of hundreds of
// ESM files. Handlers that import the service (serve, serve exec, admin) stay ESM files in dist/,
// imported by path (src/cli/module-loader.ts). (Node 22's module.enableCompileCache would do the
// cache part.)
import { execFileSync, spawnSync } from "node:child_process";
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
    define: { "import.meta.url": "__bundleUrl" },
    // Written as the function Node's Module.wrap would make of it, so bin/ compiles the file's
    // text as read, without first copying megabytes into a wrapped string.
    banner: {
      js: '(function (exports, require, module, __filename, __dirname) {const __bundleUrl = require("node:url").pathToFileURL(__filename).href;',
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

await cjsBundle("start", path.join(cliDir, "main.js"), [lazyChildProcess]);

const names = await handlerNames();
const esmOnly = await serviceHandlers(names);
const entry = path.join(cliDir, "run-entry.js");
// zod compiles each object schema to a function (new Function) on its first parse, which pays
// off over many parses; a command parses one or two responses, and that code is in no cache.
// Imported first, so the setting is in place before any schema is built.
const zodSetup = path.join(cliDir, "run-zod-jitless.js");
writeFileSync(zodSetup, 'import { config } from "zod";\nconfig({ jitless: true });\n');
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
await cjsBundle("run", entry, [lazyChildProcess, noHttp2, lazyChalk]);
rmSync(entry);
rmSync(zodSetup);

for (const name of ["start", "run"]) {
  const text = readFileSync(path.join(cliDir, `${name}.cjs`), "utf8");
  const at = [...text].findIndex((char) => char.charCodeAt(0) > 0x7f);
  if (at >= 0)
    throw new Error(`dist/cli/${name}.cjs is not ASCII at ${at}: bin/ reads it as latin1`);
}

// Two runs write the code caches next to the bundles (see bin/reseller.cjs): `--help` the
// start-up one, and a command against a closed port the run one (a failing request still
// compiles what every command needs: context, client, undici, zod and a contract schema).
for (const name of ["start", "run"]) rmSync(path.join(cliDir, `${name}.cache`), { force: true });
const bin = path.join(root, "bin", "reseller.cjs");
execFileSync(process.execPath, [bin, "--help"], { stdio: "ignore" });
const profiles = mkdtempSync(path.join(tmpdir(), "reseller-bundle-"));
spawnSync(process.execPath, [bin, "plans", "list", "--json"], {
  stdio: "ignore",
  env: {
    ...process.env,
    RESELLER_BASE_URL: "http://127.0.0.1:9",
    RESELLER_TOKEN: "rsk_code_cache_priming",
    RESELLER_CONFIG_DIR: profiles,
  },
});
rmSync(profiles, { recursive: true, force: true });
