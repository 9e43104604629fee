import type { InputsOf, OutputsOf, ResourceTable } from "../../tables.js";
import { objectPlaceFields, s3AccessFields, s3Fields } from "../../s3/fields.js";

export { objectPlaceFields, s3AccessFields, sha256MetadataKey } from "../../s3/fields.js";

export const bucketObjectTable = {
  type: "BucketObject",
  description:
    "One object in a bucket, its content from a local file, a string or a URL. Changes are found by the SHA-256 " +
    "of the content, computed at preview, never by ETag; large files are streamed (multipart above 64 MiB).",
  fields: {
    ...objectPlaceFields,
    key: {
      kind: "string",
      input: "program",
      required: true,
      replaceOnChange: true,
      description: "The object's key, e.g. `config/app.json`. Changing it replaces the object.",
    },
    sourcePath: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "A local file as the content (relative paths start from the program directory), streamed whatever its " +
        "size. Exactly one of `sourcePath`, `content` and `sourceUrl`.",
      sdk: {
        name: "source",
        description:
          "The content as a Pulumi asset: a `FileAsset` (streamed from disk), a `StringAsset` or a `RemoteAsset` " +
          "(http or https), or a local file's path. Exactly one of `source`, `content` and `sourceUrl`.",
      },
    },
    content: {
      kind: "string",
      input: "program",
      optional: true,
      description: "The content as a string, stored as UTF-8. Exactly one of the three sources.",
    },
    sourceUrl: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "An http(s) URL whose body is the content, fetched at create and when the URL changes (its SHA-256 is " +
        "then known only after the download: a change behind the same URL is not seen). Exactly one of the three " +
        "sources.",
    },
    contentType: {
      kind: "string",
      input: "program",
      description:
        "The object's Content-Type. Left out: from the key's extension (`.html` → `text/html; charset=utf-8`), " +
        "else `application/octet-stream`.",
    },
    cacheControl: {
      kind: "string",
      input: "program",
      optional: true,
      description: "The object's Cache-Control, e.g. `public, max-age=300`.",
    },
    contentDisposition: {
      kind: "string",
      input: "program",
      optional: true,
      description: 'The object\'s Content-Disposition, e.g. `attachment; filename="report.pdf"`.',
    },
    metadata: {
      kind: "stringMap",
      input: "program",
      optional: true,
      description:
        "User metadata (`x-amz-meta-<key>`): lower-case keys of letters, digits, `-` and `_`; `sha256` is the " +
        "provider's own.",
    },
    ...s3AccessFields,
    sha256: {
      kind: "string",
      input: "check",
      optional: true,
      description:
        "SHA-256 (hex) of the content: computed at preview for a file or a string, at the download for a URL. Kept " +
        "in the object's metadata too (`x-amz-meta-sha256`), so a refresh sees a change made outside Pulumi (it " +
        "then holds the object's value, empty when it has none).",
    },
    size: { kind: "number", description: "The content's size in bytes." },
    etag: {
      kind: "string",
      description: "The ETag the platform answered (an identity of the write, not a content hash).",
    },
    ...s3Fields,
  },
} as const satisfies ResourceTable;

export type BucketObjectInputs = InputsOf<typeof bucketObjectTable>;
export type BucketObjectOutputs = OutputsOf<typeof bucketObjectTable>;
