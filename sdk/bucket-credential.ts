import * as pulumi from "@pulumi/pulumi";
import { bucketCredentialTable } from "../provider/resources/bucket-credential/fields.js";
import { customResourceArgs } from "./resource.js";

export interface BucketCredentialArgs {
  /**
   * The bucket the credential reaches (and only that bucket). Changing it replaces the credential.
   * @example bucket.bucketId
   */
  bucketId: pulumi.Input<string>;
  /**
   * False deactivates the credential in place (it is kept, but S3 refuses it); true activates it again.
   * A credential deactivated outside Pulumi shows up as drift on refresh.
   * @default true
   */
  active?: pulumi.Input<boolean>;
  /**
   * Any change to this map regenerates the secret in place: same `accessKeyId`, new
   * `secretAccessKey`, the old secret stops working at once.
   * @default {}
   * @example { rotatedOn: "2026-01-15" }
   */
  rotateWhenChanged?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/**
 * An S3 key pair scoped to one bucket. Its outputs configure an S3 client on their own:
 * `endpoint: s3Endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }`.
 *
 * @example
 * const cred = new cloudplatform.BucketCredential("writer", {
 *   bucketId: bucket.bucketId,
 *   rotateWhenChanged: { rotatedOn: "2026-01-15" },
 * });
 * export const secret = cred.secretAccessKey; // a secret
 */
export class BucketCredential extends pulumi.CustomResource {
  declare public readonly bucketId: pulumi.Output<string>;
  /** Public half of the pair; also the resource id. Stable across regenerations. */
  declare public readonly accessKeyId: pulumi.Output<string>;
  /** Secret half (a Pulumi secret); an imported credential has none until rotated. */
  declare public readonly secretAccessKey: pulumi.Output<string>;
  /**
   * A fingerprint of `secretAccessKey`: the first 16 hex digits of its SHA-256, not secret. It changes when the
   * secret does, so a diff shows which secret changed without showing it. Empty when the secret is unknown.
   */
  declare public readonly secretFingerprint: pulumi.Output<string | undefined>;
  declare public readonly active: pulumi.Output<boolean>;
  declare public readonly rotateWhenChanged: pulumi.Output<Record<string, string> | undefined>;
  /** The S3 bucket name. */
  declare public readonly bucketName: pulumi.Output<string>;
  /** The S3 endpoint (`cloudplatform:s3Url`). */
  declare public readonly s3Endpoint: pulumi.Output<string>;
  /** Always `us-east-1`. */
  declare public readonly region: pulumi.Output<string>;
  /** When the platform created the credential, when it says. */
  declare public readonly createdAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: BucketCredentialArgs, opts?: pulumi.CustomResourceOptions) {
    super(...customResourceArgs(bucketCredentialTable, name, args, opts));
  }
}
