/**
 * The S3 data plane's client (`@aws-sdk/client-s3`), loaded on first use: only forceDestroy, the
 * refresh of a RotatingBucketCredential, BucketObject and SyncedFolder need it, and loading it costs every provider process about
 * 0.15 s of CPU and 30 MiB of memory (bench/README.md, row provider-start).
 */
import type { S3Client } from "@aws-sdk/client-s3";

export type S3Sdk = typeof import("@aws-sdk/client-s3");

export function s3Sdk(): S3Sdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load; import() would turn it into ESM
  return require("@aws-sdk/client-s3") as S3Sdk;
}

/** A path-style client of `endpoint` (contract §7) signing with one credential. */
export function s3Client(
  endpoint: string,
  region: string,
  credentials: { readonly accessKeyId: string; readonly secretAccessKey: string },
  maxAttempts: number,
): S3Client {
  return new (s3Sdk().S3Client)({ endpoint, region, forcePathStyle: true, credentials, maxAttempts });
}
