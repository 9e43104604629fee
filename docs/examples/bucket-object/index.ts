import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const media = new cloudplatform.Bucket("media", { forceDestroy: true });
const writer = new cloudplatform.BucketCredential("media-writer", { bucketId: media.bucketId });

const settings = new cloudplatform.BucketObject("settings", {
  bucket: media.name,
  key: "config/settings.json",
  content: JSON.stringify({ theme: "dark" }), // or sourcePath: "./settings.json", or sourceUrl
  contentType: "application/json", // from the key's extension when left out
  cacheControl: "no-cache",
  metadata: { owner: "platform-team" },
  accessKeyId: writer.accessKeyId,
  secretAccessKey: writer.secretAccessKey.apply((secret) => secret ?? ""),
});

export const sha256 = settings.sha256;
export const etag = settings.etag;
