/**
 * The S3 calls of a bucket's contents (docs/api-contract.md §7): path-style, region us-east-1,
 * signed with the key pair the program gave (s3/fields.ts, `s3AccessFields`). A file is streamed from
 * the disk, never read whole: one PUT up to `multipartAbove`, else a multipart upload whose parts
 * are read, a few at a time, into buffers the whole process shares (provider/part-buffers.ts), so memory
 * stays flat whatever the size and however many files are sent at once. A
 * single PUT carries the SHA-256 computed at preview as its checksum, which the platform verifies:
 * a file changed since preview is refused rather than stored under the wrong hash.
 *
 * The SDK (@aws-sdk/client-s3) is loaded on first use: check and diff never need it, and loading it
 * costs a provider process about 0.15 s of CPU and 30 MiB (bench/README.md, row provider-start).
 * SyncedFolder's calls (s3/prefix.ts) and a bucket's forceDestroy (s3/empty.ts) use this client too.
 */
import { createReadStream } from "node:fs";
import { open, readFile, type FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { S3RequestError, SourceMissingError } from "../errors.js";
import { s3Client, s3Sdk, type S3Sdk } from "../s3-client.js";
import { s3Region, sha256MetadataKey } from "./fields.js";
import { etagOf, readHead, readS3Error, type LiveObject } from "./answers.js";
import { PartBuffers } from "../part-buffers.js";

export type { S3Sdk };

export interface S3Access {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** One bucket through one S3 client; `close` when done. */
export interface ObjectStore {
  readonly sdk: S3Sdk;
  readonly s3: S3Client;
  readonly bucket: string;
  close(): void;
}

/**
 * Sockets the client keeps: a folder's uploads and deletes run this many requests at once, and a
 * multipart upload its parts. Below the SDK's default (50), which opened more connections than two
 * cores serve faster.
 */
export const s3Concurrency = 16;

export function openStore(access: S3Access, bucket: string): ObjectStore {
  const s3 = s3Client(access.endpoint, s3Region, access, 5);
  return { sdk: s3Sdk(), s3, bucket, close: () => s3.destroy() };
}

/** What S3 code means for the program, said once for every call. */
function advice(code: string | undefined, bucket: string): string {
  switch (code) {
    case "InvalidAccessKeyId":
    case "SignatureDoesNotMatch":
      return (
        "The key pair in accessKeyId/secretAccessKey is unknown, deactivated or its secret was rotated: pass the " +
        "current outputs of an active BucketCredential of this bucket."
      );
    case "AccessDenied":
      return `The key pair does not reach bucket "${bucket}": give a BucketCredential of that bucket.`;
    case "NoSuchBucket":
      return `Bucket "${bucket}" does not exist: create it first (a Bucket resource), or fix the name.`;
    case "BadDigest":
    case "XAmzContentSHA256Mismatch":
      return "The file changed after the preview computed its hash: run `pulumi up` again.";
    default:
      return "Run `pulumi up` again; if it fails the same way, check the S3 endpoint (`cloudplatform:s3Url`).";
  }
}

/** An S3 call whose failure becomes a `CLOUDPLATFORM_S3_FAILED` naming the operation and the key. */
export async function s3Call<T>(
  store: ObjectStore,
  operation: string,
  key: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw s3Error(store.bucket, operation, key, err);
  }
}

export function s3Error(bucket: string, operation: string, key: string, err: unknown): S3RequestError {
  const { code, status } = readS3Error(err);
  const answered =
    status === undefined
      ? `failed (${(err as Error)?.name ?? "no answer"})`
      : `failed with ${status}${code === undefined ? "" : ` ${code}`}`;
  const where = key === "" ? `bucket "${bucket}"` : `"${key}" in bucket "${bucket}"`;
  return new S3RequestError(`S3 ${operation} of ${where} ${answered}`, advice(code, bucket), {
    ...(status === undefined ? {} : { status }),
    cause: err,
  });
}

/** Whether an S3 client's error is a 404 (a HEAD's answer has no body, hence no code). */
export function isS3NotFound(err: unknown): boolean {
  const { code, status } = readS3Error(err);
  return status === 404 || code === "NoSuchKey" || code === "NotFound";
}

/** Where an object's bytes come from: a local file (streamed) or bytes in memory (a string's). */
export type ObjectBody =
  | { readonly kind: "file"; readonly path: string; readonly size: number }
  | { readonly kind: "bytes"; readonly bytes: Buffer };

/** The headers an object is written with. */
export interface ObjectHeaders {
  readonly contentType: string;
  readonly cacheControl?: string | undefined;
  readonly contentDisposition?: string | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

export interface PutTuning {
  /** Files larger than this go in a multipart upload. */
  readonly multipartAbove: number;
  /** Bytes per part (S3's minimum is 5 MiB, its maximum count 10,000 parts: grown for larger files). */
  readonly partBytes: number;
  /** Parts in flight at once. */
  readonly partsAtOnce: number;
  /** Files up to this size are read into memory and sent as one buffer: a stream costs more per request. */
  readonly bufferBelow: number;
}

export const defaultPutTuning: PutTuning = {
  multipartAbove: 64 * 1024 * 1024,
  partBytes: 8 * 1024 * 1024,
  partsAtOnce: 4,
  bufferBelow: 1024 * 1024,
};

const maxParts = 10_000;

function sizeOf(body: ObjectBody): number {
  return body.kind === "file" ? body.size : body.bytes.length;
}

/** The command's headers: content type, caching, disposition, and the user metadata with the hash. */
function headerInput(sha256: string, headers: ObjectHeaders) {
  return {
    ContentType: headers.contentType,
    ...(headers.cacheControl === undefined ? {} : { CacheControl: headers.cacheControl }),
    ...(headers.contentDisposition === undefined ? {} : { ContentDisposition: headers.contentDisposition }),
    Metadata: { ...headers.metadata, [sha256MetadataKey]: sha256 },
  };
}

/** Writes `key` with `body`, whose SHA-256 (hex) is `sha256`; answers the ETag the platform gave. */
export async function putObject(
  store: ObjectStore,
  key: string,
  body: ObjectBody,
  sha256: string,
  headers: ObjectHeaders,
  tuning: PutTuning = defaultPutTuning,
): Promise<string> {
  const size = sizeOf(body);
  if (body.kind === "file" && size > tuning.multipartAbove) {
    return putMultipart(store, key, body.path, size, sha256, headers, tuning);
  }
  const payload =
    body.kind === "bytes"
      ? body.bytes
      : size <= tuning.bufferBelow
        ? await readFile(body.path)
        : createReadStream(body.path);
  return s3Call(store, "PutObject", key, async () => {
    const answer = await store.s3.send(
      new store.sdk.PutObjectCommand({
        Bucket: store.bucket,
        Key: key,
        Body: payload,
        ContentLength: size,
        ChecksumSHA256: Buffer.from(sha256, "hex").toString("base64"),
        ...headerInput(sha256, headers),
      }),
    );
    return etagOf(answer.ETag);
  });
}

/**
 * The buffers parts are read into, for the whole process (provider/part-buffers.ts): four parts of the
 * default size in flight at most, 32 MiB, however many uploads run at once.
 */
export const partBuffers = new PartBuffers(4, defaultPutTuning.partBytes);

/**
 * A multipart upload of a local file: parts of `partBytes` (more for a file of over 10,000 parts),
 * `partsAtOnce` in flight, each read into one of the process's part buffers and sent from it (a
 * part too large for them, in a file of over 78 GiB, is a stream of its byte range). An unfinished
 * upload of the same key left by an interrupted run is aborted first; this one is aborted when it
 * fails, once its parts in flight have answered: no part arrives after the abort, and every buffer
 * is back when the call fails.
 */
async function putMultipart(
  store: ObjectStore,
  key: string,
  path: string,
  size: number,
  sha256: string,
  headers: ObjectHeaders,
  tuning: PutTuning,
): Promise<string> {
  await abortUnfinished(store, key);
  const { sdk, s3, bucket } = store;
  const created = await s3Call(store, "CreateMultipartUpload", key, () =>
    s3.send(
      new sdk.CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        ChecksumAlgorithm: "CRC32",
        ...headerInput(sha256, headers),
      }),
    ),
  );
  const uploadId = created.UploadId ?? "";
  const partBytes = Math.max(tuning.partBytes, Math.ceil(size / maxParts));
  const count = Math.ceil(size / partBytes);
  const parts: { PartNumber: number; ETag: string; ChecksumCRC32?: string }[] = [];
  let file: FileHandle | undefined;
  try {
    file = await open(path, "r");
    const source = file;
    // The first part to fail; the other workers then start no part.
    let failed: { readonly error: unknown } | undefined;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < count && failed === undefined; index = next++) {
        const start = index * partBytes;
        const length = Math.min(partBytes, size - start);
        const part = await readPart(source, path, start, length);
        try {
          // Another part failed while this one waited for a buffer.
          if (failed !== undefined) return;
          const answer = await s3Call(store, "UploadPart", key, () =>
            s3.send(
              new sdk.UploadPartCommand({
                Bucket: bucket,
                Key: key,
                UploadId: uploadId,
                PartNumber: index + 1,
                ContentLength: length,
                ChecksumAlgorithm: "CRC32",
                Body: part.body,
              }),
            ),
          );
          parts[index] = {
            PartNumber: index + 1,
            ETag: answer.ETag ?? "",
            ...(answer.ChecksumCRC32 === undefined ? {} : { ChecksumCRC32: answer.ChecksumCRC32 }),
          };
        } finally {
          part.release();
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(tuning.partsAtOnce, count) }, () =>
        worker().catch((error: unknown) => {
          failed ??= { error };
        }),
      ),
    );
    if (failed !== undefined) throw failed.error;
    const done = await s3Call(store, "CompleteMultipartUpload", key, () =>
      s3.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
    return etagOf(done.ETag);
  } catch (err) {
    // Best effort: an upload left behind is aborted by the next write of this key, or by forceDestroy.
    await s3
      .send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
    throw err;
  } finally {
    await file?.close();
  }
}

/** A part's body, and what gives back what it holds once S3 answered. */
interface PartBody {
  readonly body: Buffer | Readable;
  release(): void;
}

/**
 * The part at `start`: its bytes read into a part buffer, or (a part larger than the buffers) a
 * stream of its range. A file shorter than at preview fails here, before anything is sent for it.
 */
async function readPart(file: FileHandle, path: string, start: number, length: number): Promise<PartBody> {
  if (length > partBuffers.bytes) {
    const stream = createReadStream(path, { start, end: start + length - 1 });
    return { body: stream, release: () => stream.destroy() };
  }
  const buffer = await partBuffers.take();
  try {
    for (let read = 0; read < length;) {
      const { bytesRead } = await file.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) {
        throw new SourceMissingError(
          `file "${path}" got shorter while it was being sent`,
          "It changed after the preview computed its hash: run `pulumi up` again.",
        );
      }
      read += bytesRead;
    }
  } catch (err) {
    partBuffers.give(buffer);
    throw err;
  }
  return { body: buffer.subarray(0, length), release: () => partBuffers.give(buffer) };
}

/** Aborts the unfinished multipart uploads of exactly `key` (an interrupted run's). */
async function abortUnfinished(store: ObjectStore, key: string): Promise<void> {
  const { sdk, s3, bucket } = store;
  const page = await s3Call(store, "ListMultipartUploads", key, () =>
    s3.send(new sdk.ListMultipartUploadsCommand({ Bucket: bucket, Prefix: key })),
  );
  for (const upload of page.Uploads ?? []) {
    if (upload.Key !== key || upload.UploadId === undefined) continue;
    await s3Call(store, "AbortMultipartUpload", key, () =>
      s3.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.UploadId })),
    );
  }
}

/** CopyObject takes sources up to 5 GiB; a larger object is written again instead. */
const maxCopyBytes = 5 * 1024 ** 3;

/**
 * New headers for an object whose content stays: a copy onto itself with the headers replaced,
 * only while it is still the object written as `etag`. Undefined when it is not (changed outside
 * Pulumi, or too large to copy): the caller writes the content again.
 */
export async function copyInPlace(
  store: ObjectStore,
  key: string,
  etag: string,
  sha256: string,
  size: number,
  headers: ObjectHeaders,
): Promise<string | undefined> {
  if (size > maxCopyBytes || etag === "") return undefined;
  try {
    const answer = await store.s3.send(
      new store.sdk.CopyObjectCommand({
        Bucket: store.bucket,
        Key: key,
        CopySource: `${store.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`,
        CopySourceIfMatch: `"${etag}"`,
        MetadataDirective: "REPLACE",
        ...headerInput(sha256, headers),
      }),
    );
    return etagOf(answer.CopyObjectResult?.ETag);
  } catch (err) {
    const { status } = readS3Error(err);
    if (status === 412 || status === 404) return undefined;
    throw s3Error(store.bucket, "CopyObject", key, err);
  }
}

/** The object at `key`, or undefined when there is none. */
export async function headObject(store: ObjectStore, key: string): Promise<LiveObject | undefined> {
  try {
    return readHead(await store.s3.send(new store.sdk.HeadObjectCommand({ Bucket: store.bucket, Key: key })));
  } catch (err) {
    if (isS3NotFound(err)) return undefined;
    throw s3Error(store.bucket, "HeadObject", key, err);
  }
}

/** Deletes `key`; a key already gone is success (S3 answers 204 alike). */
export async function deleteObject(store: ObjectStore, key: string): Promise<void> {
  await s3Call(store, "DeleteObject", key, () =>
    store.s3.send(new store.sdk.DeleteObjectCommand({ Bucket: store.bucket, Key: key })),
  );
}
