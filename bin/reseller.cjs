#!/usr/bin/env node
"use strict";
// Loads the CLI's bundles through V8 code caches so `reseller --help` and every command start
// fast on Node 20, which has no built-in compile cache: dist/cli/start.cjs (parsing, help) at
// once, dist/cli/run.cjs (what runs a command) once a command is parsed. A cache from another
// Node version is rejected by V8 and rewritten; any failure to write it is harmless.
const fs = require("node:fs");
const path = require("node:path");
const v8 = require("node:v8");
const vm = require("node:vm");

const dist = path.join(__dirname, "..", "dist", "cli");

/** Runs dist/cli/<name>.cjs from its code cache (writing the cache when missing) and returns its exports. */
function loadBundle(name) {
  const file = path.join(dist, `${name}.cjs`);
  const cacheFile = path.join(dist, `${name}.cache`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {}
  // The bundles are ASCII (scripts/bundle-cli.mjs checks): latin1 reads them without decoding.
  // Each is already wrapped as Module.wrap would wrap it (see scripts/bundle-cli.mjs).
  const script = new vm.Script(fs.readFileSync(file, "latin1"), {
    filename: file,
    cachedData,
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once("exit", () => {
      // Written whole under another name first: a parallel run never reads half a cache.
      const partial = `${cacheFile}.${process.pid}`;
      try {
        fs.writeFileSync(partial, script.createCachedData());
        fs.renameSync(partial, cacheFile);
      } catch {
        try {
          fs.rmSync(partial, { force: true });
        } catch {}
      }
    });
  }
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dist);
  return module.exports;
}

// A reader that stops early (`reseller … | head`) is not an error worth a stack trace. Any other
// failure to write stdout (a full disk under `> backup.json`) lost output a script relies on: one
// line and exit 1, never 0. The first error is kept: later writes only say the stream is closed.
let stdoutError;
function stdoutFailed(error) {
  if (error.code === "EPIPE") process.exit(0);
  stdoutError ??= error;
  process.stderr.write(`Error: could not write to stdout: ${stdoutError.message}\n`, () =>
    process.exit(1),
  );
}
process.stdout.on("error", stdoutFailed);

let runner;
loadBundle("start")
  .main(process.argv.slice(2), {
    // Getters: touching process.stdin builds its stream, which most commands never read.
    io: {
      get stdin() {
        return process.stdin;
      },
      get stdout() {
        return process.stdout;
      },
      get stderr() {
        return process.stderr;
      },
    },
    env: process.env,
    // import() does not work inside a script compiled from a code cache, so it is done here.
    importModule: (file) => import(require("node:url").pathToFileURL(file).href),
    loadRunner: () => {
      // undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it eagerly and then
      // optimises it on background threads, which the process waits for at exit (up to a few
      // hundred ms for one request); a CLI sends a handful, so baseline code compiled on first
      // call is the better trade. Set before the run bundle's code cache is read or written.
      if (runner === undefined) v8.setFlagsFromString("--liftoff-only --wasm-lazy-compilation");
      runner ??= loadBundle("run");
      return runner;
    },
  })
  .then((code) => {
    process.exitCode = code;
    // Everything is done once main returns, but undici's coarse clock (an unref'd 0.5 s timer)
    // can hold the event loop's poll for up to half a second more: leave as soon as what was
    // written has been handed to the system.
    process.stdout.write("", (error) => {
      if (error || stdoutError) return stdoutFailed(stdoutError ?? error);
      process.stderr.write("", () => process.exit(code));
    });
  });
