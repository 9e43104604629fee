import * as cloudplatform from "@pulumi-cloudplatform/sdk";

// Fails when the project has no bucket of that name.
const shared = cloudplatform.getBucketOutput({ name: "shared-assets" });

const reader = new cloudplatform.BucketCredential("shared-assets-reader", { bucketId: shared.bucketId });

export const accessKeyId = reader.accessKeyId;
export const secretAccessKey = reader.secretAccessKey; // a secret
