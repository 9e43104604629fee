/**
 * Brings a bucket's prefix to a folder's manifest: uploads the files a plan names (manifest.ts),
 * `s3Concurrency` at a time, then deletes the removed ones. Each upload that completes is recorded
 * twice: in the manifest the call returns (also when it fails part-way: the host keeps it as the
 * resource's state), and in the journal's progress log (journal.ts), which outlives a killed
 * deployment. The run after a kill lists the prefix once, and a file whose upload the log recorded
 * — same content hash, and an object whose ETag is still the one that upload was answered — is not
 * sent again. The ETag says only that the object is the one written then; the hash that it holds
 * the file's content comes from the log.
 */
import { join } from "node:path";
import type { CallContext } from "../../contract.js";
import type { ProgressLog } from "../../journal.js";
import { contentTypeOf } from "../content-types.js";
import { putObject, type ObjectStore } from "../../s3/objects.js";
import { deleteKeys, inParallel, listPrefix } from "../../s3/prefix.js";
import { keyOf, type LocalFiles, type Manifest, type Plan } from "./manifest.js";
import { arrivedLine, byPath, readArrived, type Arrived } from "./parse.js";

export interface SyncJob {
  readonly store: ObjectStore;
  readonly prefix: string;
  /** The folder, resolved. */
  readonly root: string;
  /** The folder's files now (check's scan). */
  readonly local: LocalFiles;
  readonly plan: Plan;
  readonly deleteRemoved: boolean;
  readonly cacheControl: string | undefined;
  readonly progress: ProgressLog;
}

/** A line about the sync's progress at most this often. */
const reportMs = 10_000;

/** Runs the job; `synced`, what the bucket holds as far as this run knows, is updated as requests complete. */
export async function runSync(ctx: CallContext, job: SyncJob, synced: Manifest): Promise<void> {
  const { store, prefix, plan } = job;
  const uploads = [...plan.add, ...plan.change];
  const sent = uploads.length === 0 ? [] : await notArrived(ctx, job, uploads, synced);
  let done = 0;
  let reportedAt = ctx.clock.now();
  await inParallel(sent, async (path) => {
    const { sha256, size } = job.local.get(path) as { sha256: string; size: number };
    const key = keyOf(prefix, path);
    const etag = await putObject(store, key, { kind: "file", path: join(job.root, path), size }, sha256, {
      contentType: contentTypeOf(path),
      cacheControl: job.cacheControl,
    });
    synced.set(path, { sha256, size, etag });
    // Appended as each upload completes, never batched: what a kill loses from the log is then at
    // most the uploads still in flight, and each line lost is a file sent again (issue 37). One
    // small append, no fsync: the page cache outlives a killed process, which is the case here.
    job.progress.append([arrivedLine({ bucket: store.bucket, key, sha256, etag })]);
    done++;
    const now = ctx.clock.now();
    if (now - reportedAt >= reportMs) {
      reportedAt = now;
      ctx.log.info(`uploaded ${done} of ${sent.length} files`);
    }
  });
  if (plan.remove.length > 0) {
    if (job.deleteRemoved) {
      const byKey = new Map(plan.remove.map((path) => [keyOf(prefix, path), path]));
      await deleteKeys(store, [...byKey.keys()], (key) => synced.delete(byKey.get(key) as string));
    } else {
      for (const path of plan.remove) synced.delete(path);
    }
  }
  job.progress.clear();
}

/**
 * The uploads still to send. When the progress log holds lines (an interrupted run), one listing of
 * the prefix tells which of them arrived: those are recorded in `synced` and left out.
 */
async function notArrived(ctx: CallContext, job: SyncJob, uploads: string[], synced: Manifest): Promise<string[]> {
  const arrived = new Map<string, Arrived>();
  for (const line of job.progress.lines()) {
    const a = readArrived(line);
    if (a !== undefined && a.bucket === job.store.bucket) arrived.set(a.key, a);
  }
  if (arrived.size === 0) return uploads;
  const listed = byPath(await listPrefix(job.store, job.prefix), job.prefix);
  const left: string[] = [];
  for (const path of uploads) {
    const file = job.local.get(path) as { sha256: string; size: number };
    const a = arrived.get(keyOf(job.prefix, path));
    const live = listed.get(path);
    if (a !== undefined && live !== undefined && a.sha256 === file.sha256 && live.etag === a.etag) {
      synced.set(path, { ...file, etag: a.etag });
    } else {
      left.push(path);
    }
  }
  const kept = uploads.length - left.length;
  if (kept > 0) ctx.log.info(`${kept} of ${uploads.length} files arrived in an interrupted run and are not sent again`);
  return left;
}
