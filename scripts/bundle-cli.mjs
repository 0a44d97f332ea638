// Bundles the CLI's start-up path (main, program, command declarations, commander) into one
// CommonJS file, and primes a V8 code cache for it. Node 20 loads one CJS file with a code cache
// several times faster than a graph of ESM files; command handlers stay separate ESM files,
// imported by path (src/cli/module-loader.ts) only when their command runs. (Node 22's
// module.enableCompileCache would do the cache part.)
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = path.join(root, "dist", "cli");

await build({
  entryPoints: [path.join(cliDir, "main.js")],
  outfile: path.join(cliDir, "start.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: true,
  logLevel: "warning",
  // import.meta does not exist in CommonJS; the bundle sits where main.js does, so its URL serves.
  define: { "import.meta.url": "__startUrl" },
  banner: { js: 'const __startUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [
    {
      // commander loads child_process up front, only for executable subcommands, which this
      // CLI never uses; loading it lazily spares every start Node's child-process internals.
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
    },
  ],
});

// One run writes the code cache next to the bundle (see bin/reseller.cjs).
rmSync(path.join(cliDir, "start.cache"), { force: true });
execFileSync(process.execPath, [path.join(root, "bin", "reseller.cjs"), "--help"], {
  stdio: "ignore",
});
