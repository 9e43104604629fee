// A static site kept in a bucket: the folder `www` synced under `site/`, and its settings file
// written as one object. Connection settings as in ../quickstart, then `pulumi up`.
// Optional config: `sitePath` (default "www"), `prefix` (default "site/").
// Edit a file and `pulumi up` again: only that file is sent. `pulumi preview` names what will be.
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const bucket = new cloudplatform.Bucket("site", { forceDestroy: true });
// The key pair the provider writes the objects with: the program's own credential, a secret in the state.
const writer = new cloudplatform.BucketCredential("site-writer", { bucketId: bucket.bucketId });

const site = new cloudplatform.SyncedFolder("www", {
  bucket: bucket.name,
  prefix: config.get("prefix") ?? "site/",
  path: config.get("sitePath") ?? "www",
  exclude: ["*.map", ".DS_Store"],
  cacheControl: "public, max-age=300",
  accessKeyId: writer.accessKeyId,
  secretAccessKey: writer.secretAccessKey,
});

const settings = new cloudplatform.BucketObject("settings", {
  bucket: bucket.name,
  key: "site/settings.json",
  source: new pulumi.asset.StringAsset(JSON.stringify({ title: "Hello from the Cloud Platform" })),
  cacheControl: "no-cache",
  accessKeyId: writer.accessKeyId,
  secretAccessKey: writer.secretAccessKey,
});

export const bucketName = bucket.name;
export const s3Endpoint = bucket.s3Endpoint;
export const region = bucket.region;
export const accessKeyId = writer.accessKeyId;
export const secretAccessKey = writer.secretAccessKey;
export const fileCount = site.fileCount;
export const totalBytes = site.totalBytes;
export const settingsSha256 = settings.sha256;
