/** The bucket calls of the management API (docs/api-contract.md §5). */
import { ignoreNotFound, type Created } from "../../answers/outcomes.js";
import { listAll } from "../../answers/paging.js";
import { readOne } from "../../answers/read-one.js";
import { pathOf, type ApiClient } from "../../client.js";
import { bucketListSchema, bucketSchema, createdBucketSchema, type Bucket } from "./parse.js";

export async function listBuckets(client: ApiClient, name?: string): Promise<Bucket[]> {
  const buckets = await listAll(client, "/object-storage/buckets", { name }, bucketListSchema);
  return name === undefined ? buckets : buckets.filter((b) => b.name === name);
}

export async function findBucketByName(client: ApiClient, name: string): Promise<Bucket | undefined> {
  return (await listBuckets(client, name))[0];
}

/** `list`: where to look when the GET cannot answer (a list this process shares, else a fresh one). */
export async function getBucket(client: ApiClient, id: string, list = () => listBuckets(client)): Promise<Bucket> {
  return readOne(client, "bucket", pathOf`/object-storage/buckets/${id}`, bucketSchema, list, id);
}

export async function createBucket(client: ApiClient, name: string, storageClass: string): Promise<Created<Bucket>> {
  const res = await client.request({
    method: "POST",
    path: "/object-storage/buckets",
    body: { name, storage_class: storageClass },
    schema: createdBucketSchema(name),
    reconcile: () => findBucketByName(client, name),
  });
  return { value: res.data, reconciled: res.reconciled === true };
}

/** Deletes a bucket; true when it existed. Throws `ConflictError` (`bucket_not_empty`) when not empty. */
export async function deleteBucket(client: ApiClient, id: string): Promise<boolean> {
  return ignoreNotFound(client.request({ method: "DELETE", path: pathOf`/object-storage/buckets/${id}` }));
}
