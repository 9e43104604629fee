import * as cloudplatform from "@pulumi-cloudplatform/sdk";

// Each with its bucketId, name, storageClass and createdAt.
export const buckets = cloudplatform.getBucketsOutput().buckets;
