import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const site = new cloudplatform.Bucket("site", { forceDestroy: true });
const writer = new cloudplatform.BucketCredential("site-writer", { bucketId: site.bucketId });

const www = new cloudplatform.SyncedFolder("www", {
  bucket: site.name,
  path: "./www", // relative to the program's directory
  prefix: "site/", // keys start with it
  exclude: ["*.map", ".DS_Store"],
  cacheControl: "public, max-age=300",
  deleteRemoved: true, // a file removed from the folder is deleted from the bucket
  accessKeyId: writer.accessKeyId,
  secretAccessKey: writer.secretAccessKey.apply((secret) => secret ?? ""),
});

export const fileCount = www.fileCount;
export const totalBytes = www.totalBytes;
