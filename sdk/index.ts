/** pulumi-cloudplatform: resources of the Cloud Platform as Pulumi dynamic resources. */
export { ApiKey, type ApiKeyArgs } from "./apiKey.js";
export { DnsZone, type DnsZoneArgs } from "./dnsZone.js";
export { Bucket, type BucketArgs, type StorageClass } from "./bucket.js";
export { BucketCredential, type BucketCredentialArgs } from "./bucketCredential.js";
export { Transcript, type TranscriptArgs, type TranscriptStatus } from "./transcript.js";
export * from "./functions.js";
export { CloudPlatformError } from "../provider/errors.js";
