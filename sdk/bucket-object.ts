import * as pulumi from "@pulumi/pulumi";
import { bucketObjectTable } from "../provider/resources/bucket-object/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export interface BucketObjectArgs {
  /**
   * The bucket's name (a Bucket's `name`). Changing it replaces the object.
   * @example bucket.name
   */
  bucket: pulumi.Input<string>;
  /**
   * The object's key, e.g. `config/app.json`. Changing it replaces the object.
   * @example "config/app.json"
   */
  key: pulumi.Input<string>;
  /**
   * The content as a Pulumi asset: a `FileAsset` (streamed from disk), a `StringAsset` or a `RemoteAsset` (http or
   * https), or a local file's path. Exactly one of `source`, `content` and `sourceUrl`.
   * @example new pulumi.asset.FileAsset("build/app.tar.gz")
   */
  source?: pulumi.Input<pulumi.asset.Asset | string>;
  /**
   * The content as a string, stored as UTF-8. Exactly one of the three sources.
   * @example JSON.stringify({ featureX: true })
   */
  content?: pulumi.Input<string>;
  /**
   * An http(s) URL whose body is the content, fetched at create and when the URL changes (its SHA-256 is then known
   * only after the download: a change behind the same URL is not seen). Exactly one of the three sources.
   * @example "https://downloads.example.com/model-v3.bin"
   */
  sourceUrl?: pulumi.Input<string>;
  /**
   * The object's Content-Type. Left out: from the key's extension (`.html` → `text/html; charset=utf-8`), else
   * `application/octet-stream`.
   * @example "application/json"
   */
  contentType?: pulumi.Input<string>;
  /**
   * The object's Cache-Control, e.g. `public, max-age=300`.
   * @example "public, max-age=300"
   */
  cacheControl?: pulumi.Input<string>;
  /**
   * The object's Content-Disposition, e.g. `attachment; filename="report.pdf"`.
   * @example 'attachment; filename="report.pdf"'
   */
  contentDisposition?: pulumi.Input<string>;
  /**
   * User metadata (`x-amz-meta-<key>`): lower-case keys of letters, digits, `-` and `_`; `sha256` is the provider's
   * own.
   * @example { build: "1234" }
   */
  metadata?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * The access key id the provider writes with: a BucketCredential's `accessKeyId` for this bucket. Changing it (a new
   * credential) sends no request.
   * @example writer.accessKeyId
   */
  accessKeyId: pulumi.Input<string>;
  /**
   * Its secret: a BucketCredential's `secretAccessKey` (a Pulumi secret, encrypted in the state). Changing it (a
   * rotation) sends no request.
   * @example writer.secretAccessKey
   */
  secretAccessKey: pulumi.Input<string>;
}

/**
 * One object in a bucket, written through S3 with a BucketCredential's key pair. Changes are found by
 * the SHA-256 of the content (computed at preview, kept in the state and in the object's
 * `x-amz-meta-sha256`), never by ETag; a file is streamed, in a multipart upload above 64 MiB, with
 * flat memory. See docs/objects.md.
 *
 * @example
 * const config = new cloudplatform.BucketObject("config", {
 *   bucket: bucket.name,
 *   key: "config/app.json",
 *   source: new pulumi.asset.FileAsset("config/app.json"),
 *   cacheControl: "no-cache",
 *   accessKeyId: writer.accessKeyId,
 *   secretAccessKey: writer.secretAccessKey,
 * });
 */
export class BucketObject extends pulumi.CustomResource {
  /** The bucket's name (a Bucket's `name`). Changing it replaces the object. */
  declare public readonly bucket: pulumi.Output<string>;
  /** The object's key, e.g. `config/app.json`. Changing it replaces the object. */
  declare public readonly key: pulumi.Output<string>;
  /**
   * A local file as the content (relative paths start from the program directory), streamed whatever its size. Exactly
   * one of `sourcePath`, `content` and `sourceUrl`.
   */
  declare public readonly sourcePath: pulumi.Output<string | undefined>;
  /** The content as a string, stored as UTF-8. Exactly one of the three sources. */
  declare public readonly content: pulumi.Output<string | undefined>;
  /**
   * An http(s) URL whose body is the content, fetched at create and when the URL changes (its SHA-256 is then known
   * only after the download: a change behind the same URL is not seen). Exactly one of the three sources.
   */
  declare public readonly sourceUrl: pulumi.Output<string | undefined>;
  /**
   * The object's Content-Type. Left out: from the key's extension (`.html` → `text/html; charset=utf-8`), else
   * `application/octet-stream`.
   */
  declare public readonly contentType: pulumi.Output<string>;
  /** The object's Cache-Control, e.g. `public, max-age=300`. */
  declare public readonly cacheControl: pulumi.Output<string | undefined>;
  /** The object's Content-Disposition, e.g. `attachment; filename="report.pdf"`. */
  declare public readonly contentDisposition: pulumi.Output<string | undefined>;
  /**
   * User metadata (`x-amz-meta-<key>`): lower-case keys of letters, digits, `-` and `_`; `sha256` is the provider's
   * own.
   */
  declare public readonly metadata: pulumi.Output<Record<string, string> | undefined>;
  /**
   * The access key id the provider writes with: a BucketCredential's `accessKeyId` for this bucket. Changing it (a new
   * credential) sends no request.
   */
  declare public readonly accessKeyId: pulumi.Output<string>;
  /**
   * Its secret: a BucketCredential's `secretAccessKey` (a Pulumi secret, encrypted in the state). Changing it (a
   * rotation) sends no request.
   */
  declare public readonly secretAccessKey: pulumi.Output<string>;
  /**
   * SHA-256 (hex) of the content: computed at preview for a file or a string, at the download for a URL. Kept in the
   * object's metadata too (`x-amz-meta-sha256`), so a refresh sees a change made outside Pulumi (it then holds the
   * object's value, empty when it has none).
   */
  declare public readonly sha256: pulumi.Output<string | undefined>;
  /** The content's size in bytes. */
  declare public readonly size: pulumi.Output<number>;
  /** The ETag the platform answered (an identity of the write, not a content hash). */
  declare public readonly etag: pulumi.Output<string>;
  /** The S3 endpoint (`cloudplatform:s3Url`). */
  declare public readonly s3Endpoint: pulumi.Output<string>;
  /** Always `us-east-1`. */
  declare public readonly region: pulumi.Output<string>;

  constructor(name: string, args: BucketObjectArgs, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(
        ...customResourceArgs(
          bucketObjectTable,
          name,
          args,
          opts,
          args.source === undefined ? {} : sourceOf(args.source),
        ),
      );
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}

/**
 * The provider reads a file itself (to hash and stream it), so only its path travels: an asset
 * would be copied into the state by the engine. A StringAsset travels as `content`, a RemoteAsset
 * as `sourceUrl` (a `file://` one as the file's path).
 */
function sourceOf(source: pulumi.Input<pulumi.asset.Asset | string>): Record<string, pulumi.Input<string>> {
  // An asset inside an Output arrives unwrapped: the form is known only then, so all three are outputs.
  const form: pulumi.Output<Form> = (pulumi.output(source) as pulumi.Output<unknown>).apply(formOf);
  return {
    sourcePath: form.apply((f) => f.sourcePath as string),
    content: form.apply((f) => f.content as string),
    sourceUrl: form.apply((f) => f.sourceUrl as string),
  };
}

interface Form {
  sourcePath?: string;
  content?: string;
  sourceUrl?: string;
}

/** Duck-typed: the program may hold an asset of another copy of @pulumi/pulumi. */
async function formOf(value: unknown): Promise<Form> {
  if (typeof value === "string") return { sourcePath: value };
  const asset = value as { path?: unknown; text?: unknown; uri?: unknown } | null;
  const path = await asset?.path;
  if (typeof path === "string") return { sourcePath: path };
  const text = await asset?.text;
  if (typeof text === "string") return { content: text };
  const uri = await asset?.uri;
  if (typeof uri === "string")
    return uri.startsWith("file://") ? { sourcePath: new URL(uri).pathname } : { sourceUrl: uri };
  throw new Error(
    "BucketObject: `source` must be a pulumi.asset.FileAsset, StringAsset or RemoteAsset, or a file path; archives are not objects.",
  );
}
