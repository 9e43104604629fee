import * as pulumi from "@pulumi/pulumi";
import { bucketCredentialTable } from "../provider/resources/bucket-credential/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export interface BucketCredentialArgs {
  /**
   * The bucket the credential reaches (and only that bucket). Changing it replaces the credential.
   * @example bucket.bucketId
   */
  bucketId: pulumi.Input<string>;
  /**
   * False deactivates the credential in place (it is kept, but S3 refuses it); true activates it again. A credential
   * deactivated outside Pulumi shows up as drift on refresh. Left out on a credential taken over with `accessKeyId`: it
   * stays as it is.
   * @default true
   */
  active?: pulumi.Input<boolean>;
  /**
   * Any change to this map regenerates the secret in place: same `accessKeyId`, new `secretAccessKey`, the old secret
   * stops working at once.
   * @default {}
   * @example { rotatedOn: "2026-01-15" }
   */
  rotateWhenChanged?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Public half of the pair; also the resource id. Stable across regenerations. Set it to take over an existing
   * credential of `bucketId` instead of creating one: it is kept as it is, secret included, and `secretKnown` is false
   * until `rotateWhenChanged` regenerates it. Changing it replaces the resource.
   * @example "CPAK0123456789ABCDEF" (from `getBucketCredentials({ bucketId })`)
   */
  accessKeyId?: pulumi.Input<string>;
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
 *
 * // Take over a credential that exists already: nothing changes on the platform, and its secret
 * // stays unknown (secretKnown: false) until rotateWhenChanged regenerates it.
 * const existing = new cloudplatform.BucketCredential("app", { bucketId: bucket.bucketId, accessKeyId: "CPAK…" });
 */
export class BucketCredential extends pulumi.CustomResource {
  /** The bucket the credential reaches (and only that bucket). Changing it replaces the credential. */
  declare public readonly bucketId: pulumi.Output<string>;
  /**
   * Public half of the pair; also the resource id. Stable across regenerations. Set it to take over an existing
   * credential of `bucketId` instead of creating one: it is kept as it is, secret included, and `secretKnown` is false
   * until `rotateWhenChanged` regenerates it. Changing it replaces the resource.
   */
  declare public readonly accessKeyId: pulumi.Output<string>;
  /**
   * Secret half (a Pulumi secret). Empty for a credential taken over or imported (`secretKnown: false`): the platform
   * shows a secret only when it creates or regenerates it.
   */
  declare public readonly secretAccessKey: pulumi.Output<string>;
  /**
   * Whether `secretAccessKey` holds the secret: false for a credential taken over (`accessKeyId`) or imported, until a
   * `rotateWhenChanged` change regenerates it in place.
   */
  declare public readonly secretKnown: pulumi.Output<boolean>;
  /**
   * A fingerprint of `secretAccessKey`: the first 16 hex digits of its SHA-256, not secret. It changes when the secret
   * does, so a diff shows which secret changed without showing it. Empty when the secret is unknown.
   */
  declare public readonly secretFingerprint: pulumi.Output<string | undefined>;
  /**
   * False deactivates the credential in place (it is kept, but S3 refuses it); true activates it again. A credential
   * deactivated outside Pulumi shows up as drift on refresh. Left out on a credential taken over with `accessKeyId`: it
   * stays as it is.
   */
  declare public readonly active: pulumi.Output<boolean>;
  /**
   * Any change to this map regenerates the secret in place: same `accessKeyId`, new `secretAccessKey`, the old secret
   * stops working at once.
   */
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
    const registering = registration();
    try {
      super(...customResourceArgs(bucketCredentialTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
