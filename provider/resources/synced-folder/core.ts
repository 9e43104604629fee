/**
 * SyncedFolder: a local folder kept in a bucket under a prefix, as one resource whose state is a
 * manifest (manifest.ts), for folders of tens of thousands of files (docs/objects.md). Check reads
 * the folder (hashing only the files this machine's cache cannot vouch for) down to one digest;
 * diff compares digests, and when they differ says what an `up` will send; `up` sends only that,
 * and nothing at all when the folder did not change. A refresh lists the prefix (one request per
 * 1,000 keys, no HEAD per file) and compares each object's ETag with the one its write was
 * answered. An interrupted sync resumes without sending again what arrived (sync.ts).
 */
import { requireS3Url } from "../../config.js";
import { goneFromState, type CallContext, type ResourceCore } from "../../contract.js";
import { PartialCreateError } from "../../errors.js";
import { diffInputs, inputsFrom } from "../../tables.js";
import { isS3NotFound } from "../../s3/objects.js";
import { keptWhenRefused, withStore } from "../bucket-contents.js";
import { s3Region } from "../../s3/fields.js";
import { resolveLocalPath } from "../local-files.js";
import { deleteKeys, listPrefix } from "../../s3/prefix.js";
import { checkedScan, checkSyncedFolderInputs, scannedFolder } from "./check.js";
import { syncedFolderTable, type SyncedFolderInputs, type SyncedFolderOutputs } from "./fields.js";
import {
  changedOutside,
  describePlan,
  digestOf,
  encodeManifest,
  inputDigest,
  keyOf,
  manifestOf,
  planSize,
  planSync,
  syncedFiles,
  type LocalFiles,
  type Manifest,
  type ManifestState,
  type Plan,
} from "./manifest.js";
import { byPath } from "./parse.js";
import { runSync } from "./sync.js";

type SyncedFolderCore = ResourceCore<SyncedFolderInputs, SyncedFolderOutputs>;

const { type } = syncedFolderTable;

const check: SyncedFolderCore["check"] = (ctx, _olds, news) => checkSyncedFolderInputs(ctx, news);

/** The manifest of a state, whichever version wrote it (manifest.ts). */
const stored = (state: SyncedFolderOutputs): Manifest => manifestOf(state as ManifestState);

/** The digest of what a state's bucket holds: written with it, or computed for a state written before. */
function storedDigest(state: SyncedFolderOutputs): string {
  return typeof state.manifest === "string" && typeof state.manifestDigest === "string"
    ? state.manifestDigest
    : digestOf(syncedFiles(stored(state)));
}

/** Headers every object carries changed: every file is sent again. */
const headersChanged = (olds: SyncedFolderOutputs, news: SyncedFolderInputs) =>
  (olds.cacheControl ?? "") !== (news.cacheControl ?? "");

/**
 * The inputs' digests against the state's: equal, nothing to send, and no manifest is read. The
 * state and the inputs may be of any version (a refresh hands the state's old inputs as `news`).
 * The line naming the files is written when check scanned the folder in this process (a preview or
 * an `up`; not a refresh, which does not look at the folder).
 */
const diff: SyncedFolderCore["diff"] = (ctx, _id, olds, news) => {
  const d = diffInputs(
    syncedFolderTable,
    { ...olds, manifestDigest: storedDigest(olds) },
    { ...news, manifestDigest: inputDigest(news) ?? "" },
  );
  const scanned = d.changes && d.replaces.length === 0 ? checkedScan(ctx, news) : undefined;
  if (scanned !== undefined) {
    const plan = planSync(stored(olds), scanned.files, headersChanged(olds, news));
    if (planSize(plan) > 0) ctx.log.info(describePlan(plan, news.deleteRemoved));
  }
  return d;
};

const idOf = (inputs: { bucket: string; prefix: string }) => `${inputs.bucket}/${inputs.prefix}`;

/**
 * The state: the inputs (only the table's: a state written before also held `files` and `etags`),
 * and the manifest of what the bucket holds, its digest and totals. `manifest`: its string when
 * already encoded.
 */
function outputs(
  inputs: SyncedFolderInputs | SyncedFolderOutputs,
  synced: Manifest,
  s3Endpoint: string,
  manifest = encodeManifest(synced),
): SyncedFolderOutputs {
  let totalBytes = 0;
  for (const file of synced.values()) totalBytes += file.size;
  return {
    ...inputsFrom(syncedFolderTable, inputs),
    manifestDigest: digestOf(syncedFiles(synced)),
    manifest,
    fileCount: synced.size,
    totalBytes,
    s3Endpoint,
    region: s3Region,
  };
}

/**
 * Runs the plan from `synced` (what the bucket holds); any failure keeps what arrived as the
 * resource's state, so the next `up` sends only the rest. `partialFails`: whether a failure before
 * anything arrived is partial too (an update's: its state already exists).
 */
async function sync(
  ctx: CallContext,
  inputs: SyncedFolderInputs,
  local: LocalFiles,
  synced: Manifest,
  plan: Plan,
  s3Endpoint: string,
  partialFails: boolean,
): Promise<SyncedFolderOutputs> {
  const before = synced.size;
  try {
    await withStore(ctx, { ...inputs, s3Endpoint }, (store) =>
      runSync(
        ctx,
        {
          store,
          prefix: inputs.prefix,
          root: resolveLocalPath(inputs.path),
          local,
          plan,
          deleteRemoved: inputs.deleteRemoved,
          cacheControl: inputs.cacheControl,
          progress: ctx.journal.progress(type, ctx.name),
        },
        synced,
      ),
    );
  } catch (error) {
    const moved = synced.size !== before || planSize(plan) === 0;
    if (!partialFails && !moved) throw error;
    throw new PartialCreateError(idOf(inputs), outputs(inputs, synced, s3Endpoint), error);
  }
  return outputs(inputs, synced, s3Endpoint);
}

const create: SyncedFolderCore["create"] = async (ctx, inputs) => {
  const s3Endpoint = requireS3Url(ctx.settings);
  const local = scannedFolder(ctx, inputs).files;
  const synced: Manifest = new Map();
  const outs = await sync(ctx, inputs, local, synced, planSync(synced, local), s3Endpoint, false);
  return { id: idOf(inputs), outs };
};

const update: SyncedFolderCore["update"] = async (ctx, _id, olds, news) => {
  const local = scannedFolder(ctx, news).files;
  const synced = stored(olds);
  const plan = planSync(synced, local, headersChanged(olds, news));
  const s3Endpoint = ctx.settings.s3Url ?? olds.s3Endpoint;
  // No file to send or delete (a new credential, a moved folder): no request at all.
  if (planSize(plan) === 0) {
    return typeof olds.manifest === "string" && olds.manifest !== ""
      ? outputs(news, synced, s3Endpoint, olds.manifest)
      : outputs(news, synced, s3Endpoint);
  }
  return sync(ctx, news, local, synced, plan, s3Endpoint, true);
};

const read: SyncedFolderCore["read"] = async (ctx, id, state) => {
  let listed;
  try {
    listed = byPath(await withStore(ctx, state, (store) => listPrefix(store, state.prefix)), state.prefix);
  } catch (err) {
    if (isS3NotFound((err as { cause?: unknown }).cause)) return goneFromState(ctx, `bucket "${state.bucket}"`);
    const kept = keptWhenRefused(ctx, `the objects under "${state.prefix}"`, err, state);
    return { id, outs: kept, inputs: inputsFrom(syncedFolderTable, kept) };
  }
  const synced = stored(state);
  let changed = 0;
  let removed = 0;
  for (const [path, file] of synced) {
    const live = listed.get(path);
    if (live === undefined) {
      synced.delete(path);
      removed++;
    } else if (live.etag !== file.etag) {
      synced.set(path, { sha256: changedOutside, size: live.size, etag: file.etag });
      changed++;
    }
  }
  if (changed + removed > 0) {
    ctx.log.info(
      `${changed} objects changed and ${removed} removed outside Pulumi; the next \`pulumi up\` uploads their files again`,
    );
  }
  const same = changed + removed === 0 && typeof state.manifest === "string" && state.manifest !== "";
  const outs = same
    ? outputs(state, synced, state.s3Endpoint, state.manifest)
    : outputs(state, synced, state.s3Endpoint);
  return { id, outs, inputs: inputsFrom(syncedFolderTable, outs) };
};

const remove: SyncedFolderCore["delete"] = async (ctx, _id, state) => {
  const keys = [...stored(state).keys()].map((p) => keyOf(state.prefix, p));
  try {
    await withStore(ctx, state, (store) => deleteKeys(store, keys, () => undefined));
  } catch (err) {
    // The bucket is gone, and its objects with it.
    if (!isS3NotFound((err as { cause?: unknown }).cause)) throw err;
  }
  ctx.journal.progress(type, ctx.name).clear();
};

const operations = { check, diff, create, read, update, delete: remove };

export const syncedFolderCore: SyncedFolderCore = {
  table: syncedFolderTable,
  importing: {
    supported: false,
    reason:
      "the folder and the key pair that writes it are the program's; declare a SyncedFolder instead: its first " +
      "`up` uploads the folder over the prefix",
  },
  ...operations,
};
