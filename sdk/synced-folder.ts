import * as pulumi from "@pulumi/pulumi";
import { syncedFolderTable } from "../provider/resources/synced-folder/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export interface SyncedFolderArgs {
  /**
   * The bucket's name (a Bucket's `name`). Changing it replaces the object.
   * @example bucket.name
   */
  bucket: pulumi.Input<string>;
  /**
   * Where the files go in the bucket: `site` (or `site/`) puts `index.html` at `site/index.html`; empty: at the
   * bucket's root. Changing it replaces the folder (uploaded under the new prefix, then deleted from the old).
   * @default ""
   * @example "site/"
   */
  prefix?: pulumi.Input<string>;
  /**
   * The local folder (relative paths start from the program directory). Moving it without changing its files sends
   * nothing.
   * @example "./www"
   */
  path: pulumi.Input<string>;
  /**
   * Globs of the files to sync (all when left out): `*`, `**`, `?`, `[abc]`, `{a,b}`; a glob without `/` matches a
   * file's name in any folder (`*.html`), one with `/` its path from the folder (`assets/**`).
   * @example ["*.html", "assets/**"]
   */
  include?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Globs of the files to leave out, as `include` (`*.map`, `drafts/**`); they win over `include`.
   * @example ["*.map", "drafts/**"]
   */
  exclude?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * True: a file removed from the folder (or newly excluded) is deleted from the bucket. False: its object is left in
   * the bucket and forgotten by the folder.
   * @default true
   */
  deleteRemoved?: pulumi.Input<boolean>;
  /**
   * Cache-Control of every object, e.g. `public, max-age=300`. Changing it uploads every file again.
   * @example "public, max-age=300"
   */
  cacheControl?: pulumi.Input<string>;
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
 * A local folder kept in a bucket under a prefix: one resource for tens of thousands of files, whose
 * state is a manifest (path → SHA-256, size, ETag). Preview says which files will be added, changed
 * and deleted; `up` sends only those, and nothing when the folder did not change; an interrupted
 * sync resumes without sending again what arrived. See docs/objects.md.
 *
 * @example
 * const site = new cloudplatform.SyncedFolder("site", {
 *   bucket: bucket.name,
 *   path: "./www",
 *   exclude: ["*.map"],
 *   cacheControl: "public, max-age=300",
 *   accessKeyId: writer.accessKeyId,
 *   secretAccessKey: writer.secretAccessKey,
 * });
 */
export class SyncedFolder extends pulumi.CustomResource {
  /** The bucket's name (a Bucket's `name`). Changing it replaces the object. */
  declare public readonly bucket: pulumi.Output<string>;
  /**
   * Where the files go in the bucket: `site` (or `site/`) puts `index.html` at `site/index.html`; empty: at the
   * bucket's root. Changing it replaces the folder (uploaded under the new prefix, then deleted from the old).
   */
  declare public readonly prefix: pulumi.Output<string>;
  /**
   * The local folder (relative paths start from the program directory). Moving it without changing its files sends
   * nothing.
   */
  declare public readonly path: pulumi.Output<string>;
  /**
   * Globs of the files to sync (all when left out): `*`, `**`, `?`, `[abc]`, `{a,b}`; a glob without `/` matches a
   * file's name in any folder (`*.html`), one with `/` its path from the folder (`assets/**`).
   */
  declare public readonly include: pulumi.Output<string[] | undefined>;
  /** Globs of the files to leave out, as `include` (`*.map`, `drafts/**`); they win over `include`. */
  declare public readonly exclude: pulumi.Output<string[] | undefined>;
  /**
   * True: a file removed from the folder (or newly excluded) is deleted from the bucket. False: its object is left in
   * the bucket and forgotten by the folder.
   */
  declare public readonly deleteRemoved: pulumi.Output<boolean>;
  /** Cache-Control of every object, e.g. `public, max-age=300`. Changing it uploads every file again. */
  declare public readonly cacheControl: pulumi.Output<string | undefined>;
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
   * The folder's content in one line, computed at preview: `<n> files, sha256:<hex>`, the SHA-256 of the sorted lines
   * `path<TAB>sha256<TAB>size` of the synced files. Any added, edited or removed file changes it.
   */
  declare public readonly manifestDigest: pulumi.Output<string>;
  /**
   * Every synced file in one string: `1:` then the base64 of the gzip of the sorted lines
   * `path<TAB>sha256<TAB>size<TAB>etag`, the ETag being the one the platform answered when the object was written (how
   * a refresh sees an object rewritten outside Pulumi; never used as a content hash).
   */
  declare public readonly manifest: pulumi.Output<string>;
  /** How many files are synced. */
  declare public readonly fileCount: pulumi.Output<number>;
  /** Their size in bytes, all together. */
  declare public readonly totalBytes: pulumi.Output<number>;
  /** The S3 endpoint (`cloudplatform:s3Url`). */
  declare public readonly s3Endpoint: pulumi.Output<string>;
  /** Always `us-east-1`. */
  declare public readonly region: pulumi.Output<string>;

  constructor(name: string, args: SyncedFolderArgs, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(...customResourceArgs(syncedFolderTable, name, args, opts));
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}
