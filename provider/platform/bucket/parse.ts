/** Readers of the bucket answers (docs/api-contract.md §5), by the rules of provider/answers/ (§2.3). */
import { findObject, hasAny, idNames, named, reader } from "../../answers/find.js";
import { listOf } from "../../answers/paging.js";
import { identifier, text } from "../../answers/values.js";

export interface Bucket {
  readonly id: string;
  readonly name: string;
  readonly storage_class: string | undefined;
  readonly created_at: string | undefined;
}

const bucketKinds = ["bucket"];
const bucketNameNames = ["name", "bucket_name"];

function readBucket(raw: unknown, name?: string): Bucket {
  const f = findObject(raw, bucketKinds, [hasAny(bucketNameNames, text), hasAny(idNames("bucket"), identifier)]);
  return {
    ...named(f, "bucket", f.read(bucketNameNames, text), name),
    storage_class: f.read(["storage_class", "storage_tier"], text),
  };
}

export const bucketSchema = reader((raw) => readBucket(raw));
/** The answer of a create, which may leave out the name it was sent. */
export const createdBucketSchema = (name: string) => reader((raw) => readBucket(raw, name));
export const bucketListSchema = reader(listOf(["buckets"], (raw) => readBucket(raw)));
