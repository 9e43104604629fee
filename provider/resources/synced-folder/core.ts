/**
 * SyncedFolder: a local folder kept in a bucket under a prefix, as one resource whose state is a
 * manifest (manifest.ts), for folders of tens of thousands of files (docs/objects.md). Check hashes
 * the folder; diff compares the manifests and says what an `up` will send; `up` sends only that,
 * and nothing at all when the folder did not change. A refresh lists the prefix (one request per
 * 1,000 keys, no HEAD per file) and compares each object's ETag with the one its write was
 * answered. An interrupted sync resumes without sending again what arrived (sync.ts).
 */
import { requireS3Url } from "../../config.js";
import { goneFromState, type CallContext, type ResourceCore } from "../../contract.js";
import { PartialCreateError } from "../../errors.js";
import { diffInputs, inputsFrom } from "../../tables.js";
import { isUnknown } from "../../vocabulary.js";
import { isS3NotFound } from "../bucket-object/api.js";
import { keptWhenRefused, withStore } from "../bucket-contents.js";
import { s3Region } from "../bucket/fields.js";
import { resolveLocalPath } from "../local-files.js";
import { deleteKeys, listPrefix } from "./api.js";
import { checkSyncedFolderInputs } from "./check.js";
import { syncedFolderTable, type SyncedFolderInputs, type SyncedFolderOutputs } from "./fields.js";
import { changedOutside, describePlan, keyOf, planSize, planSync, readEntry, type Plan } from "./manifest.js";
import { byPath } from "./parse.js";
import { runSync, type Synced } from "./sync.js";

type SyncedFolderCore = ResourceCore<SyncedFolderInputs, SyncedFolderOutputs>;

const { type } = syncedFolderTable;

const check: SyncedFolderCore["check"] = (_ctx, _olds, news) => checkSyncedFolderInputs(news);

/** Headers every object carries changed: every file is sent again. */
const headersChanged = (olds: SyncedFolderOutputs, news: SyncedFolderInputs) =>
  (olds.cacheControl ?? "") !== (news.cacheControl ?? "");

function planOf(olds: SyncedFolderOutputs | undefined, news: SyncedFolderInputs): Plan {
  return planSync(olds?.files ?? {}, olds?.etags ?? {}, news.files, olds !== undefined && headersChanged(olds, news));
}

const diff: SyncedFolderCore["diff"] = (ctx, _id, olds, news) => {
  const d = diffInputs(syncedFolderTable, olds, news);
  if (d.replaces.length === 0 && !isUnknown(news.files)) {
    const plan = planOf(olds, news);
    if (planSize(plan) > 0) ctx.log.info(describePlan(plan, news.deleteRemoved));
  }
  return d;
};

const idOf = (inputs: { bucket: string; prefix: string }) => `${inputs.bucket}/${inputs.prefix}`;

function outputs(inputs: SyncedFolderInputs, synced: Synced, s3Endpoint: string): SyncedFolderOutputs {
  const sizes = Object.values(synced.files).map((entry) => readEntry(entry).size);
  return {
    ...inputs,
    files: synced.files,
    etags: synced.etags,
    fileCount: sizes.length,
    totalBytes: sizes.reduce((a, b) => a + b, 0),
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
  synced: Synced,
  plan: Plan,
  s3Endpoint: string,
  partialFails: boolean,
): Promise<SyncedFolderOutputs> {
  const before = Object.keys(synced.etags).length;
  try {
    await withStore(ctx, { ...inputs, s3Endpoint }, (store) =>
      runSync(
        ctx,
        {
          store,
          prefix: inputs.prefix,
          root: resolveLocalPath(inputs.path),
          local: inputs.files,
          plan,
          deleteRemoved: inputs.deleteRemoved,
          cacheControl: inputs.cacheControl,
          progress: ctx.journal.progress(type, ctx.name),
        },
        synced,
      ),
    );
  } catch (error) {
    const moved = Object.keys(synced.etags).length !== before || planSize(plan) === 0;
    if (!partialFails && !moved) throw error;
    throw new PartialCreateError(idOf(inputs), outputs(inputs, synced, s3Endpoint), error);
  }
  return outputs(inputs, synced, s3Endpoint);
}

const create: SyncedFolderCore["create"] = async (ctx, inputs) => {
  const s3Endpoint = requireS3Url(ctx.settings);
  const synced: Synced = { files: {}, etags: {} };
  const outs = await sync(ctx, inputs, synced, planOf(undefined, inputs), s3Endpoint, false);
  return { id: idOf(inputs), outs };
};

const update: SyncedFolderCore["update"] = async (ctx, _id, olds, news) => {
  const plan = planOf(olds, news);
  const synced: Synced = { files: { ...olds.files }, etags: { ...olds.etags } };
  const s3Endpoint = ctx.settings.s3Url ?? olds.s3Endpoint;
  // No file to send or delete (a new credential, a moved folder): no request at all.
  if (planSize(plan) === 0) return outputs(news, synced, s3Endpoint);
  return sync(ctx, news, synced, plan, s3Endpoint, true);
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
  const files = { ...state.files };
  const etags = { ...state.etags };
  let changed = 0;
  let removed = 0;
  for (const path of Object.keys(files)) {
    const live = listed.get(path);
    if (live === undefined) {
      delete files[path];
      delete etags[path];
      removed++;
    } else if (live.etag !== etags[path]) {
      files[path] = changedOutside(live.size);
      changed++;
    }
  }
  if (changed + removed > 0) {
    ctx.log.info(
      `${changed} objects changed and ${removed} removed outside Pulumi; the next \`pulumi up\` uploads their files again`,
    );
  }
  const outs = outputs(state, { files, etags }, state.s3Endpoint);
  return { id, outs, inputs: inputsFrom(syncedFolderTable, outs) };
};

const remove: SyncedFolderCore["delete"] = async (ctx, _id, state) => {
  const keys = [...new Set([...Object.keys(state.files), ...Object.keys(state.etags)])].map((p) =>
    keyOf(state.prefix, p),
  );
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
