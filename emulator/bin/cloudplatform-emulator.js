#!/usr/bin/env node
"use strict";
// Thin launcher: the emulator is written in TypeScript and compiled to dist/ by `npm run build`
// (run automatically by `npm install` at the repository root).
try {
  require.resolve("../dist/cli.js");
} catch {
  console.error("cloudplatform-emulator: dist/ is missing; run `npm run build` at the repository root first.");
  process.exit(1);
}
require("../dist/cli.js").main(process.argv.slice(2));
