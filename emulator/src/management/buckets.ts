import { z } from "zod";
import { ApiError, missing, validationError } from "../api-error.js";
import { newBucketId } from "../ids.js";
import type { ObjectStoreApi } from "../interfaces.js";
import { bucketNameProblem, STORAGE_CLASSES } from "../names.js";
import type { BucketRecord, StateStore } from "../state.js";
import { parseBody } from "./body.js";
import { deletedReply, objectReply } from "../replies.js";
import { listByNameRoute, readOneRoute, type Route } from "../router.js";

const createBucketBody = z.strictObject({
  name: z.string(),
  storage_class: z.enum(STORAGE_CLASSES, { error: `must be one of ${STORAGE_CLASSES.join(", ")}` }).default("Standard"),
});

/** The bucket with this id, or a 404. */
export const findBucket = (state: StateStore, id: string): BucketRecord =>
  state.getBucket(id) ?? missing(`bucket ${id}`);

/** Buckets (docs/api-contract.md §5). */
export function bucketRoutes(state: StateStore, objects: () => ObjectStoreApi): Route[] {
  const find = (id: string): BucketRecord => findBucket(state, id);
  return [
    listByNameRoute("bucket", "/object-storage/buckets", () => state.listBuckets()),
    {
      method: "POST",
      path: "/object-storage/buckets",
      async handle({ req }) {
        const body = await parseBody(req, createBucketBody);
        const problem = bucketNameProblem(body.name);
        if (problem !== undefined) throw validationError(`name: bucket name "${body.name}" ${problem}`);
        const bucket: BucketRecord = {
          id: newBucketId(),
          name: body.name,
          storage_class: body.storage_class,
          created_at: new Date().toISOString(),
        };
        if (!state.addBucket(bucket)) {
          throw new ApiError(409, "name_taken", `a bucket named ${body.name} already exists on the platform`);
        }
        return objectReply("bucket", bucket, 201);
      },
    },
    readOneRoute("bucket", "/object-storage/buckets/{bucketId}", find),
    {
      method: "DELETE",
      path: "/object-storage/buckets/{bucketId}",
      async handle({ params }) {
        const id = params["bucketId"]!;
        const bucket = find(id);
        if (!(await objects().isEmpty(bucket.name))) {
          throw new ApiError(
            409,
            "bucket_not_empty",
            `bucket ${bucket.name} still holds objects or unfinished multipart uploads`,
          );
        }
        // A concurrent delete may have won while the object store was asked.
        if (!state.deleteBucket(id)) missing(`bucket ${id}`);
        await objects().dropBucket(bucket.name);
        return deletedReply("bucket", `bucket ${bucket.name} deleted`);
      },
    },
  ];
}
