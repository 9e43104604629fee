/**
 * What this provider process learned about each bucket from its own calls, so that the common
 * paths cost no extra request (one provider process serves a whole deployment):
 * - its name, from the bucket's create or read: a credential's `bucketName` without a GET;
 * - the access key ids it holds, when known: none for a bucket this process just created, or those
 *   of a list this process read before a credential create, kept current by its own creates and
 *   deletes. A credential create compares the bucket's list with them after an unknown outcome;
 * - its credentials list, shared for a short while (shared-list.ts);
 * - a queue: the creates of one bucket's credentials run one after the other, so that the one new
 *   access key id after a create is the one it made (docs/api-contract.md §2.4).
 */
import { listCredentials } from "../platform/bucket-credential/api.js";
import { getBucket } from "../platform/bucket/api.js";
import type { CallContext } from "../contract.js";
import { withHint } from "../errors.js";
import type { Credential } from "../platform/bucket-credential/parse.js";
import { collectionChanged, sharedList } from "./shared-list.js";

interface BucketFacts {
  name?: string;
  /** Undefined: not known (read the list). */
  keys?: Set<string>;
  queue: Promise<unknown>;
}

function factsOf(ctx: CallContext, bucketId: string): BucketFacts {
  return ctx.memo(`bucket ${ctx.settings.baseUrl} ${bucketId}`, (): BucketFacts => ({ queue: Promise.resolve() }));
}

/**
 * A bucket this process created or read. `empty`: its create was answered just now, so it holds no
 * credential yet (not after a create that was found by name: an earlier run may have made that one).
 */
export function learnBucket(ctx: CallContext, bucketId: string, name: string, empty = false): void {
  const facts = factsOf(ctx, bucketId);
  facts.name = name;
  if (empty) facts.keys = new Set();
}

/** The bucket's name, when this process has seen it. */
export function knownBucketName(ctx: CallContext, bucketId: string): string | undefined {
  return factsOf(ctx, bucketId).name;
}

/** The bucket's name, for S3 clients: known to this process when it created or read the bucket, else read. */
export async function nameOfBucket(ctx: CallContext, bucketId: string): Promise<string> {
  const known = knownBucketName(ctx, bucketId);
  if (known !== undefined) return known;
  const bucket = await getBucket(ctx.client, bucketId).catch((err: unknown) => {
    throw withHint(err, "CLOUDPLATFORM_NOT_FOUND", `Check bucketId: no bucket ${bucketId} exists.`);
  });
  learnBucket(ctx, bucket.id, bucket.name);
  return bucket.name;
}

/** The key of the buckets' shared list (shared-list.ts). */
export const bucketsList = "buckets";

/** The bucket was deleted (and its credentials with it, contract §5). */
export function forgetBucket(ctx: CallContext, bucketId: string): void {
  collectionChanged(ctx, bucketsList);
  const facts = factsOf(ctx, bucketId);
  delete facts.name;
  delete facts.keys;
  listOutdated(ctx, bucketId);
}

/**
 * The access key ids the bucket holds right now, without a request when this process knows them,
 * else from one list (which this process then keeps current).
 */
export async function currentKeys(ctx: CallContext, bucketId: string): Promise<ReadonlySet<string>> {
  const facts = factsOf(ctx, bucketId);
  if (facts.keys === undefined) {
    facts.keys = new Set((await listCredentials(ctx.client, bucketId)).map((c) => c.access_key_id));
  }
  return new Set(facts.keys);
}

/** This process made (or adopted) `accessKeyId`. */
export function keyAdded(ctx: CallContext, bucketId: string, accessKeyId: string): void {
  factsOf(ctx, bucketId).keys?.add(accessKeyId);
  listOutdated(ctx, bucketId);
}

/** This process deleted `accessKeyId`. */
export function keyRemoved(ctx: CallContext, bucketId: string, accessKeyId: string): void {
  factsOf(ctx, bucketId).keys?.delete(accessKeyId);
  listOutdated(ctx, bucketId);
}

/** What the bucket holds is no longer known for sure (a create whose outcome is unknown): list next time. */
export function keysUnknown(ctx: CallContext, bucketId: string): void {
  delete factsOf(ctx, bucketId).keys;
  listOutdated(ctx, bucketId);
}

/** A credential of the bucket changed (activated, deactivated): a list read before no longer says so. */
export function listOutdated(ctx: CallContext, bucketId: string): void {
  collectionChanged(ctx, credentialsOf(bucketId));
}

const credentialsOf = (bucketId: string) => `buckets/${bucketId}/credentials`;

/** The credential list of a bucket, shared by the reads of a short while. */
export function cachedCredentialList(ctx: CallContext, bucketId: string): Promise<Credential[]> {
  return sharedList(ctx, credentialsOf(bucketId), () => listCredentials(ctx.client, bucketId));
}

/** Runs `work` once every credential create of the bucket queued before it has ended. */
export function oneAtATime<T>(ctx: CallContext, bucketId: string, work: () => Promise<T>): Promise<T> {
  const facts = factsOf(ctx, bucketId);
  const run = facts.queue.then(work);
  facts.queue = run.catch(() => undefined);
  return run;
}
