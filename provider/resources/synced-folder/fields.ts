import type { InputsOf, OutputsOf, ResourceTable } from "../../tables.js";
import { objectPlaceFields, s3AccessFields, s3Fields } from "../../s3/fields.js";

export const syncedFolderTable = {
  type: "SyncedFolder",
  description:
    "A local folder kept in a bucket under a prefix: one resource for tens of thousands of files, its state a " +
    "manifest (path → SHA-256, size, ETag), not a resource per file. `up` sends only the files that changed.",
  fields: {
    ...objectPlaceFields,
    prefix: {
      kind: "string",
      input: "program",
      replaceOnChange: true,
      default: "",
      description:
        "Where the files go in the bucket: `site` (or `site/`) puts `index.html` at `site/index.html`; empty: at the " +
        "bucket's root. Changing it replaces the folder (uploaded under the new prefix, then deleted from the old).",
    },
    path: {
      kind: "string",
      input: "program",
      required: true,
      description:
        "The local folder (relative paths start from the program directory). Moving it without changing its files " +
        "sends nothing.",
    },
    include: {
      kind: "stringList",
      input: "program",
      optional: true,
      description:
        "Globs of the files to sync (all when left out): `*`, `**`, `?`, `[abc]`, `{a,b}`; a glob without `/` " +
        "matches a file's name in any folder (`*.html`), one with `/` its path from the folder (`assets/**`).",
    },
    exclude: {
      kind: "stringList",
      input: "program",
      optional: true,
      description: "Globs of the files to leave out, as `include` (`*.map`, `drafts/**`); they win over `include`.",
    },
    deleteRemoved: {
      kind: "boolean",
      input: "program",
      default: true,
      description:
        "True: a file removed from the folder (or newly excluded) is deleted from the bucket. False: its object is " +
        "left in the bucket and forgotten by the folder.",
    },
    cacheControl: {
      kind: "string",
      input: "program",
      optional: true,
      description: "Cache-Control of every object, e.g. `public, max-age=300`. Changing it uploads every file again.",
    },
    ...s3AccessFields,
    manifestDigest: {
      kind: "string",
      input: "check",
      description:
        "The folder's content in one line, computed at preview: `<n> files, sha256:<hex>`, the SHA-256 of the sorted " +
        "lines `path<TAB>sha256<TAB>size` of the synced files. Any added, edited or removed file changes it.",
    },
    manifest: {
      kind: "string",
      description:
        "Every synced file in one string: `1:` then the base64 of the gzip of the sorted lines " +
        "`path<TAB>sha256<TAB>size<TAB>etag`, the ETag being the one the platform answered when the object was " +
        "written (how a refresh sees an object rewritten outside Pulumi; never used as a content hash).",
    },
    fileCount: { kind: "number", description: "How many files are synced." },
    totalBytes: { kind: "number", description: "Their size in bytes, all together." },
    ...s3Fields,
  },
} as const satisfies ResourceTable;

export type SyncedFolderInputs = InputsOf<typeof syncedFolderTable>;
export type SyncedFolderOutputs = OutputsOf<typeof syncedFolderTable>;
