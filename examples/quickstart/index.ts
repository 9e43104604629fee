// A bucket and a credential that can read and write it over S3.
//   pulumi config set cloudplatform:baseUrl http://127.0.0.1:8080
//   pulumi config set cloudplatform:s3Url http://127.0.0.1:8081
//   pulumi config set --secret cloudplatform:apiKey <your API key>
//   pulumi up
// Optional: `bucketName` (default: the logical name plus a random suffix) and
// `storageClass` (Standard, InfrequentAccess or Archive; changing it replaces the bucket).
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const bucket = new cloudplatform.Bucket("media", {
  name: config.get("bucketName"),
  storageClass: (config.get("storageClass") ?? "Standard") as cloudplatform.StorageClass,
  // Lets `pulumi destroy` remove the bucket even when objects were uploaded to it.
  forceDestroy: true,
});

const credential = new cloudplatform.BucketCredential("media-writer", {
  bucketId: bucket.bucketId,
});

export const bucketName = bucket.name;
export const storageClass = bucket.storageClass;
export const s3Endpoint = bucket.s3Endpoint;
export const region = bucket.region;
export const accessKeyId = credential.accessKeyId;
// A Pulumi secret: `pulumi stack output secretAccessKey --show-secrets` prints it.
export const secretAccessKey = credential.secretAccessKey;
