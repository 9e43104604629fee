// A credential's whole life, driven by stack config, without ever replacing it:
//   pulumi config set active false    # deactivate: S3 refuses the key, the id stays
//   pulumi config set active true     # activate again
//   pulumi config set rotation 2      # any new value: a new secret, same access key id
// (connection settings as in ../quickstart)
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const bucket = new cloudplatform.Bucket("uploads", { forceDestroy: true });

const credential = new cloudplatform.BucketCredential("uploader", {
  bucketId: bucket.bucketId,
  active: config.getBoolean("active") ?? true,
  // A new value in this map regenerates the secret in place (any keys, any string values).
  rotateWhenChanged: { rotation: config.get("rotation") ?? "1" },
});

export const bucketName = credential.bucketName;
export const s3Endpoint = credential.s3Endpoint;
export const region = credential.region;
export const accessKeyId = credential.accessKeyId;
export const secretAccessKey = credential.secretAccessKey;
export const active = credential.active;
