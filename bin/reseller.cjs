#!/usr/bin/env node
"use strict";
// Loads the start-up bundle through a V8 code cache so `reseller --help` and simple commands
// start fast on Node 20, which has no built-in compile cache. A cache from another Node version
// is rejected by V8 and rewritten; any failure to write it is harmless.
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const Module = require("node:module");

const bundle = path.join(__dirname, "..", "dist", "cli", "start.cjs");
const cacheFile = path.join(__dirname, "..", "dist", "cli", "start.cache");

let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {}
const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, "utf8")), {
  filename: bundle,
  cachedData,
});
if (cachedData === undefined || script.cachedDataRejected) {
  process.once("exit", () => {
    try {
      fs.writeFileSync(cacheFile, script.createCachedData());
    } catch {}
  });
}
const exported = { exports: {} };
script
  .runInThisContext()
  .call(exported.exports, exported.exports, require, exported, bundle, path.dirname(bundle));

// A reader that stops early (`reseller … | head`) is not an error worth a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

exported.exports
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
  })
  .then((code) => {
    process.exitCode = code;
  });
