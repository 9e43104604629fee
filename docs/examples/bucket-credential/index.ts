import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const media = new cloudplatform.Bucket("media", { forceDestroy: true });

const writer = new cloudplatform.BucketCredential("media-writer", {
  bucketId: media.bucketId,
  active: true, // false deactivates it in place: S3 refuses it until it is true again
  // Any change regenerates the secret in place: same access key id, the old secret stops working.
  rotateWhenChanged: { rotatedOn: "2026-11-01" },
});

export const endpoint = writer.s3Endpoint; // path-style
export const region = writer.region;
export const bucketName = writer.bucketName;
export const accessKeyId = writer.accessKeyId;
export const secretAccessKey = writer.secretAccessKey; // a secret
