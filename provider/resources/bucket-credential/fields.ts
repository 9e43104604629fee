import { createdAt, secretFingerprint, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";
import { s3Fields } from "../../s3/fields.js";

export const bucketCredentialTable = {
  type: "BucketCredential",
  description:
    "An S3 key pair scoped to one bucket. `active` switches it on and off in place; a `rotateWhenChanged` change " +
    "regenerates the secret in place. `accessKeyId` takes over an existing credential instead of creating one. The " +
    "secret cannot be read back: a credential taken over or imported has none (`secretKnown: false`) until rotated.",
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
      // Left out with `accessKeyId`: the credential taken over stays as it is.
      keptWhenLeftOut: true,
      description:
        "False deactivates the credential in place (it is kept, but S3 refuses it); true activates it again. A " +
        "credential deactivated outside Pulumi shows up as drift on refresh. Left out on a credential taken over " +
        "with `accessKeyId`: it stays as it is.",
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
      input: "program",
      replaceOnChange: true,
      // Left out: the credential this resource made or took over, whatever its id.
      keptWhenLeftOut: true,
      description:
        "Public half of the pair; also the resource id. Stable across regenerations. Set it to take over an " +
        "existing credential of `bucketId` instead of creating one: it is kept as it is, secret included, and " +
        "`secretKnown` is false until `rotateWhenChanged` regenerates it. Changing it replaces the resource.",
    },
    secretAccessKey: {
      kind: "string",
      secret: true,
      // Kept optional for states written before taken-over credentials recorded an empty secret.
      optional: true,
      description:
        "Secret half (a Pulumi secret). Empty for a credential taken over or imported (`secretKnown: false`): the " +
        "platform shows a secret only when it creates or regenerates it.",
    },
    secretKnown: {
      kind: "boolean",
      description:
        "Whether `secretAccessKey` holds the secret: false for a credential taken over (`accessKeyId`) or imported, " +
        "until a `rotateWhenChanged` change regenerates it in place.",
    },
    secretFingerprint: secretFingerprint("`secretAccessKey`"),
    bucketName: { kind: "string", description: "The S3 bucket name." },
    ...s3Fields,
    createdAt: createdAt("credential"),
  },
} as const satisfies ResourceTable;

export type BucketCredentialInputs = InputsOf<typeof bucketCredentialTable>;
export type BucketCredentialOutputs = OutputsOf<typeof bucketCredentialTable>;
