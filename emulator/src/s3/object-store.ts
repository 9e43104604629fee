/**
 * Object bytes and metadata on disk, one folder per bucket:
 *   objects/<bucket>/data/<uuid>          the bytes (never rewritten in place)
 *   objects/<bucket>/meta/<sha256(key)>.json  the sidecar: a JSON line naming its data file, or, for
 *                                         an object of at most INLINE_MAX_BYTES, followed by its bytes
 * A put streams to tmp/, renames the bytes into data/, then atomically replaces the sidecar: readers
 * see the old object or the new one, never a mix. A small object is written once, sidecar and bytes
 * together, and renamed into place: half the file operations of a data file and its sidecar, which
 * were most of the cost of a small put. An in-memory index of the sidecars' JSON (loaded per bucket
 * on first use) serves listings; metadata mutations of a bucket are serialised.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Checksums, ChecksumType } from "./checksums.js";

/** What the client chose about an object (kept across copies unless replaced). */
export interface ObjectAttributes {
  readonly contentType: string;
  /** Stored representation headers (cache-control, content-disposition, content-encoding, content-language, expires). */
  readonly headers: Readonly<Record<string, string>>;
  /** x-amz-meta-* values by lower-case name without the prefix. */
  readonly userMetadata: Readonly<Record<string, string>>;
}

export interface ObjectMeta extends ObjectAttributes {
  readonly key: string;
  /** Absent when the bytes follow the sidecar's JSON line. */
  readonly dataFile?: string;
  /** Quoted, as S3 sends it. */
  readonly etag: string;
  readonly size: number;
  readonly checksums: Checksums;
  /** How `checksums` covers the object; absent (objects stored before it was kept) means FULL_OBJECT. */
  readonly checksumType?: ChecksumType;
  /** ISO 8601 */
  readonly lastModified: string;
  readonly partsCount?: number;
}

type NewObject = Omit<ObjectMeta, "key" | "dataFile" | "lastModified">;

/** Objects up to this size are kept in their sidecar. */
export const INLINE_MAX_BYTES = 16 * 1024;

/** The current bytes of an object: an open data file, or, for a small object, the bytes themselves. */
export type StoredObject =
  | { readonly meta: ObjectMeta; readonly file: FileHandle; readonly bytes?: undefined }
  | { readonly meta: ObjectMeta; readonly bytes: Buffer; readonly file?: undefined };

/** Where a committed object's bytes come from: a verified temp file, or (small objects) memory. */
export type NewBytes = { readonly tempFile: string } | { readonly bytes: Buffer };

/**
 * A conditional write's test of the object it would replace (undefined: none), run under the
 * bucket's lock right before the write becomes visible; it throws to refuse the write.
 */
export type WriteCondition = (current: ObjectMeta | undefined) => void;

// Enough for any sidecar's JSON line (a 1 KiB key, 2 KiB of user metadata), so that loading an
// index reads one block per object, not the inline bytes after it.
const SIDECAR_HEAD_BYTES = 16 * 1024;
const NEWLINE = 0x0a;

interface BucketIndex {
  readonly objects: Map<string, ObjectMeta>;
  sorted: string[] | undefined;
}

export class ObjectStore {
  private readonly root: string;
  private readonly tmpDir: string;
  private readonly indexes = new Map<string, Promise<BucketIndex>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly dirs = new Map<string, Promise<void>>();

  constructor(dataDir: string) {
    this.root = join(dataDir, "s3");
    this.tmpDir = join(this.root, "tmp");
  }

  /** Creates the folders and drops temp files a crash left behind. */
  async init(): Promise<void> {
    await rm(this.tmpDir, { recursive: true, force: true });
    await mkdir(this.tmpDir, { recursive: true });
    await mkdir(join(this.root, "objects"), { recursive: true });
  }

  tempPath(): string {
    return join(this.tmpDir, randomUUID());
  }

  bucketDir(bucket: string): string {
    return join(this.root, "objects", bucket);
  }

  uploadsRoot(): string {
    return join(this.root, "uploads");
  }

  /** Runs `task` after every earlier mutation of this bucket finished. */
  async withBucketLock<T>(bucket: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(bucket) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.catch(() => undefined);
    this.locks.set(bucket, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(bucket) === settled) this.locks.delete(bucket);
    }
  }

  /**
   * Makes `source` visible as `key`, if `condition` (a conditional write's) holds then. Only the step
   * that makes the object visible (the condition, the sidecar's rename and the index entry) holds the
   * bucket's lock: moving the bytes and writing the sidecar touch files no one else names, so
   * concurrent puts overlap there, and of concurrent writes that require the key absent, one wins.
   */
  async commit(
    bucket: string,
    key: string,
    source: NewBytes,
    object: NewObject,
    condition?: WriteCondition,
  ): Promise<ObjectMeta> {
    const dir = this.bucketDir(bucket);
    // Loading an index removes data files no sidecar names: it must be done before ours lands there.
    await this.index(bucket);
    await this.dirsOf(bucket);
    const lastModified = new Date().toISOString();
    const sidecarTemp = this.tempPath();
    let meta: ObjectMeta;
    if ("bytes" in source) {
      if (source.bytes.length > INLINE_MAX_BYTES)
        throw new Error(`inline objects are at most ${INLINE_MAX_BYTES} bytes`);
      meta = { ...object, key, lastModified };
      await writeFile(sidecarTemp, Buffer.concat([Buffer.from(`${JSON.stringify(meta)}\n`), source.bytes]));
    } else {
      meta = { ...object, key, dataFile: randomUUID(), lastModified };
      await rename(source.tempFile, join(dir, "data", meta.dataFile!));
      await writeFile(sidecarTemp, JSON.stringify(meta));
    }
    let previous: ObjectMeta | undefined;
    try {
      previous = await this.withBucketLock(bucket, async () => {
        // The bucket may have been dropped meanwhile (deleted on the management API): then the
        // rename fails and the put fails, as if it had come after the delete.
        const index = await this.index(bucket);
        const replaced = index.objects.get(key);
        condition?.(replaced);
        await rename(sidecarTemp, this.sidecarPath(bucket, key));
        if (replaced === undefined) insertSorted(index, key);
        index.objects.set(key, meta);
        return replaced;
      });
    } catch (err) {
      await rm(sidecarTemp, { force: true });
      if (meta.dataFile !== undefined) await rm(join(dir, "data", meta.dataFile), { force: true });
      throw err;
    }
    if (previous?.dataFile !== undefined) await unlink(join(dir, "data", previous.dataFile)).catch(() => undefined);
    return meta;
  }

  /** Creates the bucket's folders once per index (again after a drop). */
  private dirsOf(bucket: string): Promise<void> {
    let ready = this.dirs.get(bucket);
    if (!ready) {
      const dir = this.bucketDir(bucket);
      ready = Promise.all([
        mkdir(join(dir, "data"), { recursive: true }),
        mkdir(join(dir, "meta"), { recursive: true }),
      ]).then(() => undefined);
      ready.catch(() => this.dirs.delete(bucket));
      this.dirs.set(bucket, ready);
    }
    return ready;
  }

  async head(bucket: string, key: string): Promise<ObjectMeta | undefined> {
    return (await this.index(bucket)).objects.get(key);
  }

  /**
   * The current bytes of `key`. Holding the descriptor keeps a data file readable even if a
   * concurrent put or delete replaces it meanwhile; a small object is read whole from its sidecar,
   * whose own JSON line describes it (the index may already name a newer version, or still an older).
   */
  async open(bucket: string, key: string): Promise<StoredObject | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const indexed = await this.head(bucket, key);
      if (!indexed) return undefined;
      try {
        let meta = indexed;
        if (meta.dataFile === undefined) {
          const sidecar = await readFile(this.sidecarPath(bucket, key));
          const newline = sidecar.indexOf(NEWLINE);
          meta = JSON.parse(sidecar.toString("utf8", 0, newline < 0 ? sidecar.length : newline)) as ObjectMeta;
          if (meta.dataFile === undefined) return { meta, bytes: sidecar.subarray(newline + 1) };
        }
        return { meta, file: await open(join(this.bucketDir(bucket), "data", meta.dataFile), "r") };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    return undefined;
  }

  /** Deletes `key` if `condition` holds for it; true when it existed. */
  async delete(bucket: string, key: string, condition?: WriteCondition): Promise<boolean> {
    return this.withBucketLock(bucket, async () => {
      const index = await this.index(bucket);
      const meta = index.objects.get(key);
      condition?.(meta);
      if (!meta) return false;
      await rm(this.sidecarPath(bucket, key), { force: true });
      index.objects.delete(key);
      removeSorted(index, key);
      if (meta.dataFile !== undefined) await rm(join(this.bucketDir(bucket), "data", meta.dataFile), { force: true });
      return true;
    });
  }

  /** All keys of the bucket in UTF-8 binary order (S3's listing order). */
  async sortedKeys(bucket: string): Promise<readonly string[]> {
    const index = await this.index(bucket);
    index.sorted ??= [...index.objects.keys()].sort(compareKeys);
    return index.sorted;
  }

  async objectCount(bucket: string): Promise<number> {
    return (await this.index(bucket)).objects.size;
  }

  async bucketsOnDisk(): Promise<string[]> {
    return readdir(join(this.root, "objects")).catch(() => []);
  }

  async drop(bucket: string): Promise<void> {
    await this.withBucketLock(bucket, async () => {
      await rm(this.bucketDir(bucket), { recursive: true, force: true });
      this.indexes.delete(bucket);
      this.dirs.delete(bucket);
    });
  }

  private sidecarPath(bucket: string, key: string): string {
    const name = createHash("sha256").update(key, "utf8").digest("hex");
    return join(this.bucketDir(bucket), "meta", `${name}.json`);
  }

  private index(bucket: string): Promise<BucketIndex> {
    let index = this.indexes.get(bucket);
    if (!index) {
      index = this.load(bucket);
      index.catch(() => this.indexes.delete(bucket));
      this.indexes.set(bucket, index);
    }
    return index;
  }

  /** Reads the sidecars of a bucket and removes data files no sidecar names (left by a crash). */
  private async load(bucket: string): Promise<BucketIndex> {
    const dir = this.bucketDir(bucket);
    const objects = new Map<string, ObjectMeta>();
    const names = await readdir(join(dir, "meta")).catch(() => [] as string[]);
    for (const name of names) {
      const meta = await readSidecarMeta(join(dir, "meta", name));
      objects.set(meta.key, meta);
    }
    const referenced = new Set([...objects.values()].map((m) => m.dataFile));
    for (const file of await readdir(join(dir, "data")).catch(() => [] as string[])) {
      if (!referenced.has(file)) await rm(join(dir, "data", file), { force: true });
    }
    return { objects, sorted: undefined };
  }
}

/** The JSON line of a sidecar, without reading the bytes of a small object after it. */
async function readSidecarMeta(path: string): Promise<ObjectMeta> {
  const file = await open(path, "r");
  let text: Buffer;
  try {
    const head = Buffer.allocUnsafe(SIDECAR_HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    text = head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  if (text.indexOf(NEWLINE) < 0 && text.length === SIDECAR_HEAD_BYTES) text = await readFile(path);
  const newline = text.indexOf(NEWLINE);
  return JSON.parse(text.toString("utf8", 0, newline < 0 ? text.length : newline)) as ObjectMeta;
}

/**
 * Keeps a built listing order up to date as keys come and go: a binary search and one move of the
 * array, instead of sorting the whole bucket again at the next listing (a put of a new key between
 * listings, as a state backend's lock does, would otherwise cost a sort of every key each time).
 */
function insertSorted(index: BucketIndex, key: string): void {
  if (index.sorted === undefined) return;
  index.sorted.splice(firstIndexAfter(index.sorted, key, true), 0, key);
}

function removeSorted(index: BucketIndex, key: string): void {
  if (index.sorted === undefined) return;
  const at = firstIndexAfter(index.sorted, key, true);
  if (index.sorted[at] === key) index.sorted.splice(at, 1);
}

/** The first index of `sorted` whose key is after `bound` (or equal to it when `inclusive`). */
export function firstIndexAfter(sorted: readonly string[], bound: string, inclusive: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(sorted[mid]!, bound);
    if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * S3 lists keys in the byte order of their UTF-8 encoding, which is the order of code points. UTF-16
 * code units have that order too, except that a surrogate (half of a code point above U+FFFF) sorts
 * below U+E000–U+FFFF: moving the surrogates above them gives code point order without encoding.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800;
}
