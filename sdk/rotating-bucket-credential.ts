import * as pulumi from "@pulumi/pulumi";
import {
  rotatingBucketCredentialTable,
  type Slot,
  type Status,
} from "../provider/resources/rotating-bucket-credential/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export type { Slot as CredentialSlot, Status as CredentialStatus };

export interface RotatingBucketCredentialArgs {
  /**
   * The bucket both credentials reach (and only that bucket). Changing it replaces both.
   * @example bucket.bucketId
   */
  bucketId: pulumi.Input<string>;
  /**
   * Rotate once this long has passed since the last rotation: a whole number and a unit, `m` (minutes), `h`, `d` or
   * `w`, e.g. `30d` or `12h`. Every `pulumi preview` and `up` checks it against the clock (no refresh needed), and a
   * due rotation shows as an update.
   * @example "30d"
   */
  rotateAfter?: pulumi.Input<string>;
  /**
   * Any change to this map rotates once (also without `rotateAfter`).
   * @default {}
   * @example { rotatedOn: "2026-01-15" }
   */
  rotateWhenChanged?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Deactivate the previous credential once this long has passed since the rotation that made it previous (the form of
   * `rotateAfter`, and shorter than it); the next rotation activates it again with a new secret.
   * @example "7d"
   */
  deactivatePreviousAfter?: pulumi.Input<string>;
  /**
   * How long a pair stays valid at least after a rotation made it previous: a rotation due sooner (by
   * `rotateWhenChanged`) waits, with a warning, and the first `up` after that time does it. It covers the applications
   * that still use the pair, e.g. because an `up` failed after the rotation and left the stack's outputs with it. The
   * form of `rotateAfter`, or `0m` for no wait; at most `rotateAfter` and `deactivatePreviousAfter`. Default `1h`, or
   * the shorter of those two when shorter.
   * @default "1h"
   * @example "15m"
   */
  minimumOverlap?: pulumi.Input<string>;
  /**
   * Access key ids of one or two existing credentials of the bucket to take over at create, unchanged, instead of
   * creating them: the first becomes current, the second (or a new credential) previous. Their secrets stay unknown to
   * Pulumi (`secretKnown` false) until a rotation regenerates them. Read at create only.
   * @example ["CPAK0123456789ABCDEF"]
   */
  takeOver?: pulumi.Input<pulumi.Input<string>[]>;
}

/**
 * Two S3 credentials of one bucket, rotated in turn without an outage: a rotation regenerates the
 * credential that is not current and makes it current, so the previously current secret keeps
 * working until the next rotation. An application that takes the current pair (`accessKeyId`,
 * `secretAccessKey`) after each `pulumi up` never meets a refused request. Its outputs configure an
 * S3 client on their own: `endpoint: s3Endpoint, region, forcePathStyle: true, credentials: {
 * accessKeyId, secretAccessKey }`.
 *
 * @example
 * const app = new cloudplatform.RotatingBucketCredential("app", {
 *   bucketId: bucket.bucketId,
 *   rotateAfter: "30d", // checked by every preview and up
 *   deactivatePreviousAfter: "7d", // optional: the previous pair stops working a week after a rotation
 * });
 * export const accessKeyId = app.accessKeyId;
 * export const secretAccessKey = app.secretAccessKey; // a secret
 */
export class RotatingBucketCredential extends pulumi.CustomResource {
  /** The bucket both credentials reach (and only that bucket). Changing it replaces both. */
  declare public readonly bucketId: pulumi.Output<string>;
  /**
   * Rotate once this long has passed since the last rotation: a whole number and a unit, `m` (minutes), `h`, `d` or
   * `w`, e.g. `30d` or `12h`. Every `pulumi preview` and `up` checks it against the clock (no refresh needed), and a
   * due rotation shows as an update.
   */
  declare public readonly rotateAfter: pulumi.Output<string | undefined>;
  /** Any change to this map rotates once (also without `rotateAfter`). */
  declare public readonly rotateWhenChanged: pulumi.Output<Record<string, string> | undefined>;
  /**
   * Deactivate the previous credential once this long has passed since the rotation that made it previous (the form of
   * `rotateAfter`, and shorter than it); the next rotation activates it again with a new secret.
   */
  declare public readonly deactivatePreviousAfter: pulumi.Output<string | undefined>;
  /**
   * How long a pair stays valid at least after a rotation made it previous: a rotation due sooner (by
   * `rotateWhenChanged`) waits, with a warning, and the first `up` after that time does it. It covers the applications
   * that still use the pair, e.g. because an `up` failed after the rotation and left the stack's outputs with it. The
   * form of `rotateAfter`, or `0m` for no wait; at most `rotateAfter` and `deactivatePreviousAfter`. Default `1h`, or
   * the shorter of those two when shorter.
   */
  declare public readonly minimumOverlap: pulumi.Output<string | undefined>;
  /**
   * Access key ids of one or two existing credentials of the bucket to take over at create, unchanged, instead of
   * creating them: the first becomes current, the second (or a new credential) previous. Their secrets stay unknown to
   * Pulumi (`secretKnown` false) until a rotation regenerates them. Read at create only.
   */
  declare public readonly takeOver: pulumi.Output<string[] | undefined>;
  /** The slot of the current credential, `a` or `b`: each rotation makes the other slot current. */
  declare public readonly currentSlot: pulumi.Output<Slot>;
  /** The current credential's access key id: what applications use now (empty while it is missing). */
  declare public readonly accessKeyId: pulumi.Output<string>;
  /** The current credential's secret (a Pulumi secret); empty while Pulumi does not know it (see `secretKnown`). */
  declare public readonly secretAccessKey: pulumi.Output<string>;
  /**
   * A fingerprint of `secretAccessKey`: the first 16 hex digits of its SHA-256, not secret. It changes when the secret
   * does, so a diff shows which secret changed without showing it. Empty when the secret is unknown.
   */
  declare public readonly secretFingerprint: pulumi.Output<string>;
  /**
   * Whether `secretAccessKey` holds the current credential's secret: false for a taken-over credential until a rotation
   * regenerates it, and while its secret is lost.
   */
  declare public readonly secretKnown: pulumi.Output<boolean>;
  /**
   * The current credential: `active`; `inactive` (deactivated); `secretLost` (its secret was regenerated outside
   * Pulumi, or a regeneration's answer was lost); `missing` (deleted outside Pulumi, or its create failed). The next
   * `up` repairs any but `active`.
   */
  declare public readonly status: pulumi.Output<Status>;
  /** The previous credential's access key id: current until the last rotation, valid until the next one. */
  declare public readonly previousAccessKeyId: pulumi.Output<string>;
  /** The previous credential's secret (a Pulumi secret); empty while Pulumi does not know it. */
  declare public readonly previousSecretAccessKey: pulumi.Output<string>;
  /**
   * A fingerprint of `previousSecretAccessKey`: the first 16 hex digits of its SHA-256, not secret. It changes when the
   * secret does, so a diff shows which secret changed without showing it. Empty when the secret is unknown.
   */
  declare public readonly previousSecretFingerprint: pulumi.Output<string>;
  /** Whether `previousSecretAccessKey` holds the previous credential's secret. */
  declare public readonly previousSecretKnown: pulumi.Output<boolean>;
  /**
   * The previous credential: `active`; `inactive` (deactivated); `secretLost` (its secret was regenerated outside
   * Pulumi, or a regeneration's answer was lost); `missing` (deleted outside Pulumi, or its create failed). The next
   * `up` repairs any but `active`, but `inactive` once `deactivatePreviousAfter` has passed, which is intended.
   */
  declare public readonly previousStatus: pulumi.Output<Status>;
  /** The S3 bucket name. */
  declare public readonly bucketName: pulumi.Output<string>;
  /** The S3 endpoint (`cloudplatform:s3Url`). */
  declare public readonly s3Endpoint: pulumi.Output<string>;
  /** Always `us-east-1`. */
  declare public readonly region: pulumi.Output<string>;
  /** How many rotations this resource has made. */
  declare public readonly rotations: pulumi.Output<number>;
  /** When the last rotation happened (the create, before the first), ISO 8601. */
  declare public readonly rotatedAt: pulumi.Output<string>;
  /** When `rotateAfter` makes the next rotation due, ISO 8601; empty without `rotateAfter`. */
  declare public readonly nextRotationAt: pulumi.Output<string>;

  constructor(name: string, args: RotatingBucketCredentialArgs, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(...customResourceArgs(rotatingBucketCredentialTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
