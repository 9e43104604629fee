import { secretFingerprint, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";
import { s3Fields } from "../../s3/fields.js";

/** The two credentials' places: a rotation makes the other one current. */
export const slots = ["a", "b"] as const;
export type Slot = (typeof slots)[number];

/**
 * What the last `up` or `refresh` found of a credential. Anything but `active` (and `inactive` for
 * the previous credential past its grace period) is repaired by the next `up`.
 */
export const statuses = ["active", "inactive", "secretLost", "missing"] as const;
export type Status = (typeof statuses)[number];

const statusText =
  "`active`; `inactive` (deactivated); `secretLost` (its secret was regenerated outside Pulumi, or a " +
  "regeneration's answer was lost); `missing` (deleted outside Pulumi, or its create failed). The next `up` " +
  "repairs any but `active`";

export const rotatingBucketCredentialTable = {
  type: "RotatingBucketCredential",
  description:
    "Two S3 credentials of one bucket, rotated in turn without an outage: a rotation regenerates the credential " +
    "that is not current and makes it current, so the previously current secret keeps working until the next " +
    "rotation. It rotates when `rotateWhenChanged` changes and, with `rotateAfter`, on a schedule that every " +
    "`pulumi preview` and `up` evaluates.",
  fields: {
    bucketId: {
      kind: "string",
      input: "program",
      required: true,
      replaceOnChange: true,
      description: "The bucket both credentials reach (and only that bucket). Changing it replaces both.",
    },
    rotateAfter: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "Rotate once this long has passed since the last rotation: a whole number and a unit, `m` (minutes), `h`, " +
        "`d` or `w`, e.g. `30d` or `12h`. Every `pulumi preview` and `up` checks it against the clock (no refresh " +
        "needed), and a due rotation shows as an update.",
    },
    rotateWhenChanged: {
      kind: "stringMap",
      input: "program",
      optional: true,
      description: "Any change to this map rotates once (also without `rotateAfter`).",
    },
    deactivatePreviousAfter: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "Deactivate the previous credential once this long has passed since the rotation that made it previous " +
        "(the form of `rotateAfter`, and shorter than it); the next rotation activates it again with a new secret.",
    },
    minimumOverlap: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "How long a pair stays valid at least after a rotation made it previous: a rotation due sooner (by " +
        "`rotateWhenChanged`) waits, with a warning, and the first `up` after that time does it. It covers the " +
        "applications that still use the pair, e.g. because an `up` failed after the rotation and left the stack's " +
        "outputs with it. The form of `rotateAfter`, or `0m` for no wait; at most `rotateAfter` and " +
        "`deactivatePreviousAfter`. Default `1h`, or the shorter of those two when shorter.",
    },
    takeOver: {
      kind: "stringList",
      input: "program",
      optional: true,
      description:
        "Access key ids of one or two existing credentials of the bucket to take over at create, unchanged, " +
        "instead of creating them: the first becomes current, the second (or a new credential) previous. Their " +
        "secrets stay unknown to Pulumi (`secretKnown` false) until a rotation regenerates them. Read at create only.",
    },
    currentSlot: {
      kind: "string",
      values: slots,
      description: "The slot of the current credential, `a` or `b`: each rotation makes the other slot current.",
    },
    accessKeyId: {
      kind: "string",
      description: "The current credential's access key id: what applications use now (empty while it is missing).",
    },
    secretAccessKey: {
      kind: "string",
      secret: true,
      description:
        "The current credential's secret (a Pulumi secret); empty while Pulumi does not know it (see `secretKnown`).",
    },
    secretFingerprint: secretFingerprint("`secretAccessKey`"),
    secretKnown: {
      kind: "boolean",
      description:
        "Whether `secretAccessKey` holds the current credential's secret: false for a taken-over credential " +
        "until a rotation regenerates it, and while its secret is lost.",
    },
    status: { kind: "string", values: statuses, description: `The current credential: ${statusText}.` },
    previousAccessKeyId: {
      kind: "string",
      description:
        "The previous credential's access key id: current until the last rotation, valid until the next one.",
    },
    previousSecretAccessKey: {
      kind: "string",
      secret: true,
      description: "The previous credential's secret (a Pulumi secret); empty while Pulumi does not know it.",
    },
    previousSecretFingerprint: secretFingerprint("`previousSecretAccessKey`"),
    previousSecretKnown: {
      kind: "boolean",
      description: "Whether `previousSecretAccessKey` holds the previous credential's secret.",
    },
    previousStatus: {
      kind: "string",
      values: statuses,
      description:
        `The previous credential: ${statusText}, but \`inactive\` once \`deactivatePreviousAfter\` has passed, ` +
        "which is intended.",
    },
    bucketName: { kind: "string", description: "The S3 bucket name." },
    ...s3Fields,
    rotations: { kind: "number", description: "How many rotations this resource has made." },
    rotatedAt: {
      kind: "string",
      description: "When the last rotation happened (the create, before the first), ISO 8601.",
    },
    nextRotationAt: {
      kind: "string",
      description: "When `rotateAfter` makes the next rotation due, ISO 8601; empty without `rotateAfter`.",
    },
  },
} as const satisfies ResourceTable;

export type RotatingBucketCredentialInputs = InputsOf<typeof rotatingBucketCredentialTable>;
export type RotatingBucketCredentialOutputs = OutputsOf<typeof rotatingBucketCredentialTable>;
