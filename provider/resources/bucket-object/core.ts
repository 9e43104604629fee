/**
 * BucketObject: one object written through S3 with the program's key pair (docs/objects.md). Its
 * identity is `<bucket>/<key>`; a change of either replaces it. Its content is known by its SHA-256,
 * computed at preview for a file or a string and kept in the state and in the object's metadata
 * (`x-amz-meta-sha256`): a diff compares hashes, never ETags (a multipart upload's ETag is no hash
 * of the content), and a refresh reads the object's metadata to see a change made outside Pulumi.
 * A PUT of the same bytes to the same key is the same object, so a create repeated after an
 * interrupted run needs no journal.
 */
import { stat } from "node:fs/promises";
import { requireS3Url } from "../../config.js";
import { goneFromState, type ResourceCore } from "../../contract.js";
import { SourceMissingError } from "../../errors.js";
import { diffInputs, inputsFrom, sameJson } from "../../tables.js";
import { isUnknown } from "../../vocabulary.js";
import { keptWhenRefused, withStore } from "../bucket-contents.js";
import { s3Region } from "../../s3/fields.js";
import {
  copyInPlace,
  deleteObject,
  headObject,
  isS3NotFound,
  putObject,
  type ObjectBody,
  type ObjectStore,
} from "../../s3/objects.js";
import { checkBucketObjectInputs } from "./check.js";
import { bucketObjectTable, type BucketObjectInputs, type BucketObjectOutputs } from "./fields.js";
import { withDownload } from "./remote.js";

type BucketObjectCore = ResourceCore<BucketObjectInputs, BucketObjectOutputs>;

const check: BucketObjectCore["check"] = (_ctx, _olds, news) => checkBucketObjectInputs(news);

const isRemote = (inputs: { readonly sourceUrl?: string | undefined }) => inputs.sourceUrl !== undefined;

const diff: BucketObjectCore["diff"] = (_ctx, _id, olds, news) => {
  const d = diffInputs(bucketObjectTable, olds, news);
  let changed = [...d.changed];
  if (isRemote(news)) {
    // A URL's content is hashed at the download: the URL stands for it, unless a refresh found the
    // object changed outside Pulumi (its hash then no longer the one written).
    changed = changed.filter((name) => name !== "sha256");
    if (!olds.sha256 && !changed.includes("sha256")) changed.push("sha256");
  } else if (isUnknown(news.sourcePath) && !changed.includes("sha256")) {
    changed.push("sha256");
  }
  return { changes: changed.length > 0, replaces: d.replaces, changed, deleteBeforeReplace: false };
};

function headersOf(inputs: BucketObjectInputs) {
  return {
    contentType: inputs.contentType,
    cacheControl: inputs.cacheControl,
    contentDisposition: inputs.contentDisposition,
    metadata: inputs.metadata,
  };
}

/** The object written with the inputs' content: the hash and size it was written with, and its ETag. */
async function write(
  store: ObjectStore,
  inputs: BucketObjectInputs,
): Promise<{ sha256: string; size: number; etag: string }> {
  const headers = headersOf(inputs);
  if (inputs.sourceUrl !== undefined) {
    return withDownload(inputs.sourceUrl, async (file) => {
      const body: ObjectBody = { kind: "file", path: file.path, size: file.size };
      return {
        sha256: file.sha256,
        size: file.size,
        etag: await putObject(store, inputs.key, body, file.sha256, headers),
      };
    });
  }
  const sha256 = inputs.sha256 ?? "";
  if (inputs.content !== undefined) {
    const bytes = Buffer.from(inputs.content, "utf8");
    return {
      sha256,
      size: bytes.length,
      etag: await putObject(store, inputs.key, { kind: "bytes", bytes }, sha256, headers),
    };
  }
  const { size } = await fileSize(inputs.sourcePath ?? "");
  const body: ObjectBody = { kind: "file", path: inputs.sourcePath ?? "", size };
  return { sha256, size, etag: await putObject(store, inputs.key, body, sha256, headers) };
}

async function fileSize(path: string): Promise<{ size: number }> {
  try {
    return await stat(path);
  } catch {
    throw new SourceMissingError(
      `file "${path}" disappeared after the preview`,
      "Put it back, or change `source`, then run `pulumi up` again.",
    );
  }
}

function outputs(
  inputs: BucketObjectInputs,
  written: { sha256: string; size: number; etag: string },
  s3Endpoint: string,
): BucketObjectOutputs {
  return { ...inputs, ...written, s3Endpoint, region: s3Region };
}

const idOf = (inputs: { bucket: string; key: string }) => `${inputs.bucket}/${inputs.key}`;

const create: BucketObjectCore["create"] = async (ctx, inputs) => {
  const s3Endpoint = requireS3Url(ctx.settings);
  const written = await withStore(ctx, inputs, (store) => write(store, inputs));
  return { id: idOf(inputs), outs: outputs(inputs, written, s3Endpoint) };
};

const read: BucketObjectCore["read"] = async (ctx, id, state) => {
  let live;
  try {
    live = await withStore(ctx, state, (store) => headObject(store, state.key));
  } catch (err) {
    const kept = keptWhenRefused(ctx, `object "${state.key}"`, err, state);
    return { id, outs: kept, inputs: inputsFrom(bucketObjectTable, kept) };
  }
  if (live === undefined) return goneFromState(ctx, `object "${state.key}" of bucket "${state.bucket}"`);
  const drifted = live.sha256 !== state.sha256;
  const outs: BucketObjectOutputs = {
    ...state,
    etag: live.etag,
    size: live.size,
    contentType: live.contentType ?? state.contentType,
    // A URL's hash cannot be compared with its source at preview: a drifted one is emptied, which
    // the next diff takes for a change.
    ...(drifted ? { sha256: isRemote(state) ? "" : (live.sha256 ?? "") } : {}),
  };
  setOptional(outs, "cacheControl", live.cacheControl);
  setOptional(outs, "contentDisposition", live.contentDisposition);
  setOptional(outs, "metadata", Object.keys(live.metadata).length === 0 ? undefined : live.metadata);
  if (drifted)
    ctx.log.info(`object "${state.key}" was changed outside Pulumi; the next \`pulumi up\` writes it again.`);
  return { id, outs, inputs: inputsFrom(bucketObjectTable, outs) };
};

function setOptional<K extends "cacheControl" | "contentDisposition" | "metadata">(
  outs: BucketObjectOutputs,
  key: K,
  value: BucketObjectOutputs[K] | undefined,
): void {
  if (value === undefined) delete outs[key];
  else outs[key] = value;
}

/** Headers differ while the content is the same: a copy onto itself replaces them without sending bytes. */
const sameHeaders = (a: BucketObjectInputs, b: BucketObjectInputs) => sameJson(headersOf(a), headersOf(b));

const update: BucketObjectCore["update"] = async (ctx, _id, olds, news) => {
  const sameContent =
    olds.sha256 !== undefined &&
    olds.sha256 !== "" &&
    (isRemote(news) ? news.sourceUrl === olds.sourceUrl : news.sha256 === olds.sha256);
  const s3Endpoint = olds.s3Endpoint;
  if (sameContent && sameHeaders(olds, news)) {
    // The credential, the file's path or the form of the source changed: nothing to send.
    return { ...olds, ...news, sha256: olds.sha256 ?? "", size: olds.size, etag: olds.etag };
  }
  const written = await withStore(ctx, { ...news, s3Endpoint }, async (store) => {
    if (sameContent) {
      const etag = await copyInPlace(store, news.key, olds.etag, olds.sha256 ?? "", olds.size, headersOf(news));
      if (etag !== undefined) return { sha256: olds.sha256 ?? "", size: olds.size, etag };
    }
    return write(store, news);
  });
  return outputs(news, written, ctx.settings.s3Url ?? s3Endpoint);
};

const remove: BucketObjectCore["delete"] = async (ctx, _id, state) => {
  try {
    await withStore(ctx, state, (store) => deleteObject(store, state.key));
  } catch (err) {
    // The bucket is gone, and its objects with it.
    if (isS3NotFound((err as { cause?: unknown }).cause)) return;
    throw err;
  }
};

const operations = { check, diff, create, read, update, delete: remove };

export const bucketObjectCore: BucketObjectCore = {
  table: bucketObjectTable,
  importing: {
    supported: false,
    reason:
      "the object's source (a file, a string or a URL) and the key pair that writes it are the program's; declare " +
      "a BucketObject instead: its create writes the program's content over the key",
  },
  ...operations,
};
