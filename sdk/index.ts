/**
 * pulumi-cloudplatform: resources of the Cloud Platform as Pulumi dynamic resources, the lookup
 * functions, and the error every call of the provider fails with. The public API of the package
 * (docs/public-api.md; its report: api/pulumi-cloudplatform.api.md).
 *
 * @packageDocumentation
 */
export { ApiKey, type ApiKeyArgs } from "./api-key.js";
export { DnsZone, type DnsZoneArgs } from "./dns-zone.js";
export { Bucket, type BucketArgs, type StorageClass } from "./bucket.js";
export { BucketCredential, type BucketCredentialArgs } from "./bucket-credential.js";
export { BucketObject, type BucketObjectArgs } from "./bucket-object.js";
export { SyncedFolder, type SyncedFolderArgs } from "./synced-folder.js";
export {
  RotatingBucketCredential,
  type RotatingBucketCredentialArgs,
  type CredentialSlot,
  type CredentialStatus,
} from "./rotating-bucket-credential.js";
export { Transcript, type TranscriptArgs, type TranscriptStatus } from "./transcript.js";
export * from "./functions.js";
export { CloudPlatformError, type ErrorCode } from "../provider/errors.js";
