// The storage and DNS of one site, deployed by the pipeline in .github/workflows/infrastructure.yml:
// the bucket for its assets, the credential its build writes them with, and its DNS zone. The
// platform's address is stack config (Pulumi.<stack>.yaml, in git); the API key comes from the
// environment (CLOUDPLATFORM_API_KEY, a CI secret), so it is never in git nor in the state.
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();

const assets = new cloudplatform.Bucket("assets");
const writer = new cloudplatform.BucketCredential("assets-writer", {
  bucketId: assets.bucketId,
  active: config.getBoolean("writerActive") ?? true,
});
const zone = new cloudplatform.DnsZone("site", { name: config.require("zoneName") });

export const bucketName = assets.name;
export const s3Endpoint = writer.s3Endpoint;
export const accessKeyId = writer.accessKeyId;
export const secretAccessKey = writer.secretAccessKey; // a secret: [secret] in every log and summary
export const nameservers = zone.nameservers;
