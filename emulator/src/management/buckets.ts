import { z } from "zod";
import { ApiError, notFound, validationError } from "../api-error.js";
import { newBucketId } from "../ids.js";
import type { ObjectStoreApi } from "../interfaces.js";
import { bucketNameProblem, STORAGE_CLASSES } from "../names.js";
import type { BucketRecord, StateStore } from "../state.js";
import { parseBody } from "./body.js";
import { listByNameRoute, type Route } from "./router.js";

const createBucketBody = z.strictObject({
  name: z.string(),
  storage_class: z.enum(STORAGE_CLASSES, { error: `must be one of ${STORAGE_CLASSES.join(", ")}` }).default("Standard"),
});

/** Buckets (docs/api-contract.md §5). */
export function bucketRoutes(state: StateStore, objects: () => ObjectStoreApi): Route[] {
  const find = (id: string): BucketRecord => {
    const bucket = state.getBucket(id);
    if (bucket === undefined) throw notFound(`bucket ${id}`);
    return bucket;
  };
  return [
    listByNameRoute("/object-storage/buckets", () => state.listBuckets()),
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
        return { status: 201, body: bucket };
      },
    },
    {
      method: "GET",
      path: "/object-storage/buckets/{bucketId}",
      async handle({ params }) {
        return { status: 200, body: find(params["bucketId"]!) };
      },
    },
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
        if (!state.deleteBucket(id)) throw notFound(`bucket ${id}`);
        await objects().dropBucket(bucket.name);
        return { status: 204 };
      },
    },
  ];
}
