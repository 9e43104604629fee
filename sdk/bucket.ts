import * as pulumi from "@pulumi/pulumi";
import { bucketTable, type StorageClass } from "../provider/resources/bucket/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export type { StorageClass };

export interface BucketArgs {
  /**
   * The bucket name, also its S3 name (S3 naming rules: 3–63 characters of `a-z 0-9 . -`, unique on the platform).
   * Changing it replaces the bucket.
   * @default the resource name plus `-` and 7 random characters, kept across updates
   * @example "acme-logs"
   */
  name?: pulumi.Input<string>;
  /**
   * `Standard`, `InfrequentAccess` or `Archive`. Changing it replaces the bucket.
   * @default "Standard"
   */
  storageClass?: pulumi.Input<StorageClass>;
  /**
   * When true, deleting the bucket first deletes every object and aborts every unfinished multipart upload (through S3,
   * with a temporary credential). Without it, deleting a non-empty bucket fails. It must be in the state before the
   * delete: set it, run `pulumi up`, then destroy.
   * @default false
   */
  forceDestroy?: pulumi.Input<boolean>;
  /**
   * When true and a bucket with this name already exists in the project, create takes it over instead of failing with
   * `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. The storage class must
   * match. An adopted bucket is deleted by `pulumi destroy` like any other.
   * @default false
   */
  adopt?: pulumi.Input<boolean>;
}

/**
 * An object-storage bucket, reachable over S3 at `s3Endpoint` (path-style, region `us-east-1`).
 *
 * @example
 * const bucket = new cloudplatform.Bucket("logs", { storageClass: "Standard", forceDestroy: true });
 * const cred = new cloudplatform.BucketCredential("logs-writer", { bucketId: bucket.bucketId });
 */
export class Bucket extends pulumi.CustomResource {
  /** The platform's bucket id (`{bucketId}` in API paths). */
  declare public readonly bucketId: pulumi.Output<string>;
  /**
   * The bucket name, also its S3 name (S3 naming rules: 3–63 characters of `a-z 0-9 . -`, unique on the platform).
   * Changing it replaces the bucket.
   */
  declare public readonly name: pulumi.Output<string>;
  /** `Standard`, `InfrequentAccess` or `Archive`. Changing it replaces the bucket. */
  declare public readonly storageClass: pulumi.Output<StorageClass>;
  /** The S3 endpoint (`cloudplatform:s3Url`). */
  declare public readonly s3Endpoint: pulumi.Output<string>;
  /** Always `us-east-1`. */
  declare public readonly region: pulumi.Output<string>;
  /**
   * When true, deleting the bucket first deletes every object and aborts every unfinished multipart upload (through S3,
   * with a temporary credential). Without it, deleting a non-empty bucket fails. It must be in the state before the
   * delete: set it, run `pulumi up`, then destroy.
   */
  declare public readonly forceDestroy: pulumi.Output<boolean>;
  /**
   * When true and a bucket with this name already exists in the project, create takes it over instead of failing with
   * `name_taken`: the way in for the dynamic SDK, whose resources cannot be `pulumi import`ed. The storage class must
   * match. An adopted bucket is deleted by `pulumi destroy` like any other.
   */
  declare public readonly adopt: pulumi.Output<boolean>;
  /** True when create adopted an existing bucket. */
  declare public readonly adopted: pulumi.Output<boolean>;
  /** When the platform created the bucket, when it says. */
  declare public readonly createdAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: BucketArgs = {}, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(...customResourceArgs(bucketTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
