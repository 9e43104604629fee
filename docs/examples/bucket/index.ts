import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const media = new cloudplatform.Bucket("media", {
  storageClass: "InfrequentAccess", // Standard (the default), InfrequentAccess or Archive
  forceDestroy: true, // deleting the bucket deletes its objects first
});

export const bucketId = media.bucketId;
export const bucketName = media.name;
export const s3Endpoint = media.s3Endpoint; // path-style, region us-east-1
