"use strict";
// The provider's own share of a no-change SyncedFolder operation: check's scan of the folder (built
// code, provider/resources/synced-folder/scan.ts) with the hash cache a stack's deployments left,
// its digest included. Usage: node scan-folder.js <folder> <cacheDir>. Prints the files it found
// and how many it read.
const { scanFolder } = require("../bin/provider/resources/synced-folder/scan.js");

const [folder, cacheDir] = process.argv.slice(2);
const result = scanFolder(folder, () => true, { cacheDir });
console.log(JSON.stringify({ files: result.files.size, hashed: result.hashed }));
