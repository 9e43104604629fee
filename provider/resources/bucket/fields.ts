import { createdAt, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";
import { s3Fields } from "../../s3/fields.js";

export { s3Fields, s3Region } from "../../s3/fields.js";

/** Storage classes the platform accepts (docs/api-contract.md §5). */
export const storageClasses = ["Standard", "InfrequentAccess", "Archive"] as const;
export type StorageClass = (typeof storageClasses)[number];

export const bucketTable = {
  type: "Bucket",
  description: "An object-storage bucket, reachable over S3 at `s3Endpoint` (path-style, region `us-east-1`).",
  fields: {
    name: {
      kind: "string",
      input: "program",
      replaceOnChange: true,
      description:
        "The bucket name, also its S3 name (S3 naming rules: 3–63 characters of `a-z 0-9 . -`, unique on the " +
        "platform). Changing it replaces the bucket.",
    },
    storageClass: {
      kind: "string",
      input: "program",
      replaceOnChange: true,
      default: "Standard",
      description: "`Standard`, `InfrequentAccess` or `Archive`. Changing it replaces the bucket.",
    },
    forceDestroy: {
      kind: "boolean",
      input: "program",
      default: false,
      description:
        "When true, deleting the bucket first deletes every object and aborts every unfinished multipart upload " +
        "(through S3, with a temporary credential). Without it, deleting a non-empty bucket fails. It must be in " +
        "the state before the delete: set it, run `pulumi up`, then destroy.",
    },
    adopt: {
      kind: "boolean",
      input: "program",
      default: false,
      description:
        "When true and a bucket with this name already exists in the project, create takes it over instead of " +
        "failing with `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. " +
        "The storage class must match. " +
        "An adopted bucket is deleted by `pulumi destroy` like any other.",
    },
    bucketId: { kind: "string", description: "The platform's bucket id (`{bucketId}` in API paths)." },
    ...s3Fields,
    adopted: { kind: "boolean", description: "True when create adopted an existing bucket." },
    createdAt: createdAt("bucket"),
  },
} as const satisfies ResourceTable;

export type BucketInputs = InputsOf<typeof bucketTable>;
export type BucketOutputs = OutputsOf<typeof bucketTable>;
