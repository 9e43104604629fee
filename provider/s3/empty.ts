/**
 * Empties a bucket through the S3 data plane (path-style, contract §7), signed with a key pair the
 * caller holds: every object is deleted and every unfinished multipart upload aborted. A bucket's
 * forceDestroy (resources/bucket/empty.ts) makes the pair for it and deletes it again.
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { s3Client, s3Sdk, type S3Sdk } from "../s3-client.js";
import { s3Region } from "./fields.js";

export interface EmptyResult {
  readonly objects: number;
  readonly uploads: number;
}

export async function emptyWith(
  s3Url: string,
  bucketName: string,
  pair: { readonly accessKeyId: string; readonly secretAccessKey: string },
): Promise<EmptyResult> {
  const sdk = s3Sdk();
  const s3 = s3Client(s3Url, s3Region, pair, 5);
  try {
    const objects = await deleteAllObjects(sdk, s3, bucketName);
    const uploads = await abortAllUploads(sdk, s3, bucketName);
    return { objects, uploads };
  } finally {
    s3.destroy();
  }
}

async function deleteAllObjects(sdk: S3Sdk, s3: S3Client, bucket: string): Promise<number> {
  let deleted = 0;
  let batchDelete = true;
  for (;;) {
    // Always list from the start: the keys just deleted are gone, so no continuation token is needed.
    const page = await s3.send(new sdk.ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1000 }));
    const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => k !== undefined);
    if (keys.length === 0) return deleted;
    if (batchDelete) {
      try {
        const res = await s3.send(
          new sdk.DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        if ((res.Errors ?? []).length > 0) {
          const first = res.Errors?.[0];
          throw new Error(`S3 refused to delete ${res.Errors?.length} objects (first: ${first?.Code ?? "unknown"}).`);
        }
        deleted += keys.length;
        continue;
      } catch (err) {
        // Some S3-compatible servers lack multi-object delete: fall back to one request per key.
        if (!isNotImplemented(err)) throw err;
        batchDelete = false;
      }
    }
    await Promise.all(keys.map((Key) => s3.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key }))));
    deleted += keys.length;
  }
}

async function abortAllUploads(sdk: S3Sdk, s3: S3Client, bucket: string): Promise<number> {
  let aborted = 0;
  for (;;) {
    const page = await s3.send(new sdk.ListMultipartUploadsCommand({ Bucket: bucket }));
    const uploads = (page.Uploads ?? []).filter((u) => u.Key !== undefined && u.UploadId !== undefined);
    if (uploads.length === 0) return aborted;
    await Promise.all(
      uploads.map((u) =>
        s3.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: u.Key, UploadId: u.UploadId })),
      ),
    );
    aborted += uploads.length;
  }
}

function isNotImplemented(err: unknown): boolean {
  const name = (err as { name?: unknown; Code?: unknown } | null)?.name;
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return name === "NotImplemented" || name === "MethodNotAllowed" || status === 501 || status === 405;
}
