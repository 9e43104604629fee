"use strict";
// The baseline of a no-change SyncedFolder operation: hashing the folder alone, every file's SHA-256
// read through one buffer (what any sync tool that compares content must do), nothing sent.
// Usage: node hash-folder.js <folder>. Prints the number of files.
const { createHash } = require("node:crypto");
const { closeSync, openSync, readdirSync, readSync } = require("node:fs");
const { join } = require("node:path");

const buffer = Buffer.allocUnsafe(1024 * 1024);
let files = 0;
function walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.isFile()) {
      const hash = createHash("sha256");
      const fd = openSync(path, "r");
      for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, n));
      closeSync(fd);
      hash.digest("hex");
      files++;
    }
  }
}
walk(process.argv[2]);
console.log(files);
