"use strict";
// One BucketObject upload through the provider's own S3 path (provider/s3/objects.ts,
// built): hashed first as check does, then streamed (multipart above 64 MiB).
// Usage: node object-provider.js <s3Url> <bucket> <accessKeyId> <secretAccessKey> <key> <file>
// Prints the seconds of the upload itself (the provider runs it in the host process, already
// running; its hash is computed at preview, apart from the upload).
const { statSync } = require("node:fs");
const { openStore, putObject } = require("../bin/provider/s3/objects.js");
const { hashLocalFile } = require("../bin/provider/resources/local-files.js");

const [endpoint, bucket, accessKeyId, secretAccessKey, key, file] = process.argv.slice(2);
const sha256 = hashLocalFile(file, statSync(file));
const store = openStore({ endpoint, accessKeyId, secretAccessKey }, bucket);
const started = process.hrtime.bigint();
putObject(store, key, { kind: "file", path: file, size: statSync(file).size }, sha256, {
  contentType: "application/octet-stream",
}).then(
  () => {
    console.log(Number(process.hrtime.bigint() - started) / 1e9);
    store.close();
  },
  (error) => {
    console.error(error.message);
    process.exit(1);
  },
);
