// A bucket's S3 credentials rotated without an outage: two credentials, one current. Each rotation
// regenerates the other one and makes it current, so the pair applications used until now keeps
// working until the next rotation. Applications take the current pair after each `pulumi up`.
//   pulumi config set rotateAfter 30d                # the schedule, checked by every preview and up [30d]
//   pulumi config set rotation 2                     # any new value rotates at the next up
//   pulumi config set deactivatePreviousAfter 7d     # optional: the previous pair stops a week after a rotation
//   pulumi config set minimumOverlap 15m             # optional: a rotation waits this long after the last [1h]
//   pulumi config set bucketId bkt_…                 # optional: a bucket managed elsewhere, not a new one
//   pulumi config set --path 'takeOver[0]' CPAK…     # optional, at create: keep an existing credential as current
// (connection settings as in ../quickstart)
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const bucketId = config.get("bucketId") ?? new cloudplatform.Bucket("media", { forceDestroy: true }).bucketId;

const app = new cloudplatform.RotatingBucketCredential("app", {
  bucketId,
  rotateAfter: config.get("rotateAfter") ?? "30d",
  rotateWhenChanged: { rotation: config.get("rotation") ?? "1" },
  deactivatePreviousAfter: config.get("deactivatePreviousAfter"),
  minimumOverlap: config.get("minimumOverlap"),
  takeOver: config.getObject<string[]>("takeOver"),
});

// What an S3 client needs: the current pair. The previous pair works until the next rotation.
export const s3Endpoint = app.s3Endpoint;
export const region = app.region;
export const bucketName = app.bucketName;
export const accessKeyId = app.accessKeyId;
export const secretAccessKey = app.secretAccessKey; // a secret
export const previousAccessKeyId = app.previousAccessKeyId;
export const previousSecretAccessKey = app.previousSecretAccessKey; // a secret
// Which secret changed, without showing it.
export const secretFingerprint = app.secretFingerprint;
export const previousSecretFingerprint = app.previousSecretFingerprint;
export const currentSlot = app.currentSlot;
export const rotations = app.rotations;
export const rotatedAt = app.rotatedAt;
export const nextRotationAt = app.nextRotationAt;
export const status = app.status;
export const previousStatus = app.previousStatus;
