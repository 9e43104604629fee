import { createdAt, secretFingerprint, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";
import { s3Fields } from "../bucket/fields.js";

export const bucketCredentialTable = {
  type: "BucketCredential",
  description:
    "An S3 key pair scoped to one bucket. `active` switches it on and off in place; a `rotateWhenChanged` change " +
    "regenerates the secret in place. The secret cannot be read back: an imported credential has none until rotated.",
  fields: {
    bucketId: {
      kind: "string",
      input: "program",
      required: true,
      replaceOnChange: true,
      description: "The bucket the credential reaches (and only that bucket). Changing it replaces the credential.",
    },
    active: {
      kind: "boolean",
      input: "program",
      default: true,
      description:
        "False deactivates the credential in place (it is kept, but S3 refuses it); true activates it again. A " +
        "credential deactivated outside Pulumi shows up as drift on refresh.",
    },
    rotateWhenChanged: {
      kind: "stringMap",
      input: "program",
      optional: true,
      description:
        "Any change to this map regenerates the secret in place: same `accessKeyId`, new `secretAccessKey`, the " +
        "old secret stops working at once.",
    },
    accessKeyId: {
      kind: "string",
      description: "Public half of the pair; also the resource id. Stable across regenerations.",
    },
    secretAccessKey: {
      kind: "string",
      secret: true,
      // The platform returns it only at create and regenerate: an imported credential has none.
      optional: true,
      description: "Secret half (a Pulumi secret); an imported credential has none until rotated.",
    },
    secretFingerprint: secretFingerprint("`secretAccessKey`"),
    bucketName: { kind: "string", description: "The S3 bucket name." },
    ...s3Fields,
    createdAt: createdAt("credential"),
  },
} as const satisfies ResourceTable;

export type BucketCredentialInputs = InputsOf<typeof bucketCredentialTable>;
export type BucketCredentialOutputs = OutputsOf<typeof bucketCredentialTable>;
