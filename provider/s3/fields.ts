/**
 * The fields of S3 access that several resources' tables share (a resource's folder imports no
 * other's, so they live here, below them all): where S3 is reached, the key pair a resource of a
 * bucket's contents writes with, and the place of an object. The tables re-export them by the
 * names they had there (bucket/fields.ts, bucket-object/fields.ts).
 */

/** Buckets are reached path-style in this region (contract §7). */
export const s3Region = "us-east-1";

/** Where S3 clients reach a bucket: outputs of buckets and of their credentials. */
export const s3Fields = {
  s3Endpoint: { kind: "string", description: "The S3 endpoint (`cloudplatform:s3Url`)." },
  region: { kind: "string", description: "Always `us-east-1`." },
} as const;

/**
 * How a resource of the bucket's contents reaches S3: a key pair the program gives, taken from a
 * BucketCredential's outputs (docs/objects.md, "How the provider reaches S3"). The provider never
 * makes a credential for these resources: none outlives the program's own.
 */
export const s3AccessFields = {
  accessKeyId: {
    kind: "string",
    input: "program",
    required: true,
    description:
      "The access key id the provider writes with: a BucketCredential's `accessKeyId` for this bucket. Changing " +
      "it (a new credential) sends no request.",
  },
  secretAccessKey: {
    kind: "string",
    input: "program",
    required: true,
    secret: true,
    description:
      "Its secret: a BucketCredential's `secretAccessKey` (a Pulumi secret, encrypted in the state). Changing it " +
      "(a rotation) sends no request.",
  },
} as const;

/** The bucket and the key an object lives at; a change of either is another object. */
export const objectPlaceFields = {
  bucket: {
    kind: "string",
    input: "program",
    required: true,
    replaceOnChange: true,
    description: "The bucket's name (a Bucket's `name`). Changing it replaces the object.",
  },
} as const;

/** The user metadata key the provider keeps the content's SHA-256 under (`x-amz-meta-sha256`). */
export const sha256MetadataKey = "sha256";
