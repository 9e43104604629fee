/**
 * A SyncedFolder's S3 calls beyond one object's (s3/objects.ts): the listing of its prefix,
 * a page of 1,000 keys per request, and deletes — one DeleteObject per key for a few, DeleteObjects
 * of up to 1,000 keys per request for many.
 */
import type { ListObjectsV2CommandOutput } from "@aws-sdk/client-s3";
import { s3Call, s3Concurrency, deleteObject, type ObjectStore } from "./objects.js";
import { S3RequestError } from "../errors.js";

/** Every listing page of the keys under `prefix`. */
export async function listPrefix(store: ObjectStore, prefix: string): Promise<ListObjectsV2CommandOutput[]> {
  const pages: ListObjectsV2CommandOutput[] = [];
  let token: string | undefined;
  do {
    const page = await s3Call(store, "ListObjectsV2", prefix, () =>
      store.s3.send(
        new store.sdk.ListObjectsV2Command({
          Bucket: store.bucket,
          Prefix: prefix === "" ? undefined : prefix,
          MaxKeys: 1000,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      ),
    );
    pages.push(page);
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return pages;
}

/** Up to this many keys are deleted one request each (each removed file is one DELETE); more in batches. */
export const singleDeletesAtMost = 50;
const batchKeys = 1000;

/** Deletes `keys`; `done` is told each key deleted (a key already gone counts as deleted). */
export async function deleteKeys(
  store: ObjectStore,
  keys: readonly string[],
  done: (key: string) => void,
): Promise<void> {
  if (keys.length <= singleDeletesAtMost) {
    await inParallel(keys, async (key) => {
      await deleteObject(store, key);
      done(key);
    });
    return;
  }
  const batches: string[][] = [];
  for (let i = 0; i < keys.length; i += batchKeys) batches.push(keys.slice(i, i + batchKeys));
  await inParallel(batches, async (batch) => {
    const answer = await s3Call(store, "DeleteObjects", batch[0] ?? "", () =>
      store.s3.send(
        new store.sdk.DeleteObjectsCommand({
          Bucket: store.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      ),
    );
    const failed = new Set((answer.Errors ?? []).map((e) => e.Key));
    for (const key of batch) if (!failed.has(key)) done(key);
    const first = answer.Errors?.[0];
    if (first !== undefined) {
      throw new S3RequestError(
        `S3 DeleteObjects refused ${failed.size} keys of bucket "${store.bucket}" (first: "${first.Key ?? ""}", ${first.Code ?? "no code"})`,
        "Run `pulumi up` again; the keys deleted are recorded.",
      );
    }
  });
}

/**
 * Runs `work` for each item, `s3Concurrency` at a time; after a failure no new item starts, those
 * running finish, and the first failure is thrown.
 */
export async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(s3Concurrency, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}
