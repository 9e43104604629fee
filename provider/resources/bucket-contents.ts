/**
 * What the two resources of a bucket's contents (BucketObject, SyncedFolder) share: the checks of
 * their bucket, key pair and headers, and the S3 client their operations open with that key pair
 * (docs/objects.md, "How the provider reaches S3").
 */
import { requireS3Url, s3EndpointForRead } from "../config.js";
import type { CallContext } from "../contract.js";
import { registerSecret } from "../redact.js";
import { isUnknown, type CheckFailure, type Json } from "../vocabulary.js";
import { openStore, type ObjectStore } from "../s3/objects.js";
import { readS3Error } from "../s3/answers.js";
import { sha256MetadataKey } from "../s3/fields.js";
import { bucketNameProblem, stringMap } from "./validate.js";

/** An optional string input; a failure for anything else. Unknown values pass as they are. */
export function optionalText(property: string, value: Json | undefined, failures: CheckFailure[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  failures.push({ property, reason: `${property} must be a string` });
  return undefined;
}

/** A required string input: missing or empty is a failure that says where the value comes from. */
export function requiredText(
  property: string,
  value: Json | undefined,
  failures: CheckFailure[],
  from: string,
): string {
  const text = optionalText(property, value, failures);
  if (text === undefined || text === "") {
    if (text === "" || value === undefined || value === null) {
      failures.push({ property, reason: `${property} is required: ${from}` });
    }
    return "";
  }
  return text;
}

/** The bucket's name, required and valid by S3's rules. */
export function checkBucket(value: Json | undefined, failures: CheckFailure[]): string {
  const bucket = requiredText("bucket", value, failures, "pass a Bucket's `name` output");
  if (bucket === "" || isUnknown(bucket)) return bucket;
  const problem = bucketNameProblem(bucket);
  if (problem !== undefined) failures.push({ property: "bucket", reason: `bucket name "${bucket}" ${problem}` });
  return bucket;
}

/** The key pair the program gives (both required). */
export function checkAccess(
  news: Readonly<Record<string, Json>>,
  failures: CheckFailure[],
): { accessKeyId: string; secretAccessKey: string } {
  return {
    accessKeyId: requiredText(
      "accessKeyId",
      news["accessKeyId"],
      failures,
      "pass the `accessKeyId` output of a BucketCredential of this bucket",
    ),
    secretAccessKey: requiredText(
      "secretAccessKey",
      news["secretAccessKey"],
      failures,
      "pass the `secretAccessKey` output of the same BucketCredential",
    ),
  };
}

/** S3 keeps 2 KB of user metadata per object (keys and values); the provider's hash takes 70 of them. */
const maxMetadataBytes = 2048 - (sha256MetadataKey.length + 64);

/**
 * User metadata: keys as S3 stores them (lower-case; letters, digits, `-`, `_`), so that a refresh
 * reads back what the program wrote, and never the provider's own `sha256`.
 */
export function checkMetadata(value: Json | undefined, failures: CheckFailure[]): Record<string, string> | undefined {
  const map = stringMap("metadata", value, failures);
  if (map === undefined) return undefined;
  let bytes = 0;
  for (const [key, v] of Object.entries(map)) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(key)) {
      failures.push({
        property: "metadata",
        reason: `metadata key "${key}" must be lower-case letters, digits, "-" and "_" (S3 lower-cases header names)`,
      });
    } else if (key === sha256MetadataKey) {
      failures.push({
        property: "metadata",
        reason: `metadata key "${sha256MetadataKey}" is the provider's own (the content's hash): pick another name`,
      });
    }
    if (!isUnknown(v) && /[^\x20-\x7e]/.test(v)) {
      failures.push({
        property: "metadata",
        reason: `metadata "${key}" must be printable ASCII (an HTTP header value)`,
      });
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(v);
  }
  if (bytes > maxMetadataBytes) {
    failures.push({
      property: "metadata",
      reason: `metadata is ${bytes} bytes; S3 keeps at most ${maxMetadataBytes} here`,
    });
  }
  return Object.keys(map).length === 0 ? undefined : map;
}

/** Where a resource's objects are and how to reach them, as its state or inputs say. */
export interface ContentsPlace {
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** The endpoint recorded in the state; the configured one is used when set. */
  readonly s3Endpoint?: string | undefined;
}

/** The S3 endpoint of a create (configured) or of a later call (configured, else the recorded one). */
export function endpointOf(ctx: CallContext, place: ContentsPlace): string {
  return place.s3Endpoint === undefined
    ? requireS3Url(ctx.settings)
    : (ctx.settings.s3Url ?? s3EndpointForRead(place.s3Endpoint, ctx.settings, (m) => ctx.log.warn(m)));
}

/** Runs `work` with the bucket reached through the program's key pair; the client is closed after. */
export async function withStore<T>(
  ctx: CallContext,
  place: ContentsPlace,
  work: (store: ObjectStore) => Promise<T>,
): Promise<T> {
  registerSecret(place.secretAccessKey);
  const store = openStore(
    { endpoint: endpointOf(ctx, place), accessKeyId: place.accessKeyId, secretAccessKey: place.secretAccessKey },
    place.bucket,
  );
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

/** S3's codes for a key pair it does not take: unknown, deactivated, a superseded secret, another bucket's. */
const refusedCodes = new Set(["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"]);

/**
 * A refresh's read through a key pair S3 refuses (a credential deactivated or rotated outside
 * Pulumi): nothing can be seen, so the state is kept as it was, with a warning that says so, rather
 * than failing the whole refresh. Other failures are thrown.
 */
export function keptWhenRefused<T>(ctx: CallContext, what: string, err: unknown, state: T): T {
  const { code } = readS3Error((err as { cause?: unknown } | null)?.cause ?? err);
  if (code === undefined || !refusedCodes.has(code)) throw err;
  ctx.log.warn(
    `cannot read ${what}: S3 refused the key pair (${code}); the state is kept as it was. Pass the current ` +
      "outputs of an active BucketCredential of the bucket, then refresh again.",
  );
  return state;
}
