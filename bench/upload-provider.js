"use strict";
// One upload through the provider's own upload path (provider/resources/transcript/upload.ts), as the
// Transcript resource runs it. Usage: node upload-provider.js <uploadUrl> <file>
// Built code is used (bin/), so the figures are those of the shipped package. Prints the seconds the
// upload itself took: the provider runs it inside the host process, which is already running.
const { uploadFile, defaultUploadOptions } = require("../bin/provider/resources/transcript/upload.js");

const [uploadUrl, file] = process.argv.slice(2);
const started = process.hrtime.bigint();
uploadFile(uploadUrl, file, { ...defaultUploadOptions, attempts: 1 }).then(
  () => console.log(Number(process.hrtime.bigint() - started) / 1e9),
  (error) => {
    console.error(error.message);
    process.exit(1);
  },
);
