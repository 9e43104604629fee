"use strict";
// One upload through the provider's own upload path (provider/resources/transcript/upload.ts), as the
// Transcript resource runs it. Usage: node upload-provider.js <uploadUrl> <file>
// Built code is used (bin/), so the figures are those of the shipped package.
const { uploadFile, defaultUploadOptions } = require("../bin/provider/resources/transcript/upload.js");

const [uploadUrl, file] = process.argv.slice(2);
uploadFile(uploadUrl, file, { ...defaultUploadOptions, attempts: 1 }).catch((error) => {
  console.error(error.message);
  process.exit(1);
});
