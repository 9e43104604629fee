import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const shared = cloudplatform.getBucketOutput({ name: "shared-assets" });

export const credentials = cloudplatform.getBucketCredentialsOutput({ bucketId: shared.bucketId }).credentials;
