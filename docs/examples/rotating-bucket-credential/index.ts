import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const media = new cloudplatform.Bucket("media", { forceDestroy: true });

const app = new cloudplatform.RotatingBucketCredential("app", {
  bucketId: media.bucketId,
  rotateAfter: "30d", // m, h, d or w
  rotateWhenChanged: { reason: "2026-11 audit" }, // any change: one rotation now
  deactivatePreviousAfter: "7d", // optional: the previous pair stops a week after each rotation
});

export const endpoint = app.s3Endpoint; // path-style
export const region = app.region;
export const bucketName = app.bucketName;
// The current pair: what applications take after each up.
export const accessKeyId = app.accessKeyId;
export const secretAccessKey = app.secretAccessKey; // a secret
// The pair before it, still valid until the next rotation (or deactivatePreviousAfter).
export const previousAccessKeyId = app.previousAccessKeyId;
export const secretFingerprint = app.secretFingerprint; // which secret changed, without showing it
export const nextRotationAt = app.nextRotationAt;
