/**
 * Object bytes and metadata on disk, one folder per bucket:
 *   objects/<bucket>/data/<uuid>          the bytes (never rewritten in place)
 *   objects/<bucket>/meta/<sha256(key)>.json  the sidecar naming its data file
 * A put streams to tmp/, renames the bytes into data/, then atomically replaces the sidecar: readers
 * see the old object or the new one, never a mix. An in-memory index of sidecars (loaded per bucket
 * on first use) serves listings; metadata mutations of a bucket are serialised.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Checksums } from "./checksums.js";

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
  readonly dataFile: string;
  /** Quoted, as S3 sends it. */
  readonly etag: string;
  readonly size: number;
  readonly checksums: Checksums;
  /** ISO 8601 */
  readonly lastModified: string;
  readonly partsCount?: number;
}

type NewObject = Omit<ObjectMeta, "key" | "dataFile" | "lastModified">;

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
   * Moves a fully received and verified temp file into place as `key`. Only the step that makes the
   * object visible (the sidecar's rename and the index entry) holds the bucket's lock: moving the
   * bytes and writing the sidecar touch files no one else names, so concurrent puts overlap there.
   */
  async commit(bucket: string, key: string, tempFile: string, object: NewObject): Promise<ObjectMeta> {
    const dir = this.bucketDir(bucket);
    // Loading an index removes data files no sidecar names: it must be done before ours lands there.
    await this.index(bucket);
    await this.dirsOf(bucket);
    const meta: ObjectMeta = { ...object, key, dataFile: randomUUID(), lastModified: new Date().toISOString() };
    await rename(tempFile, join(dir, "data", meta.dataFile));
    const sidecarTemp = this.tempPath();
    await writeFile(sidecarTemp, JSON.stringify(meta));
    let previous: ObjectMeta | undefined;
    try {
      previous = await this.withBucketLock(bucket, async () => {
        // The bucket may have been dropped meanwhile (deleted on the management API): then the
        // rename fails and the put fails, as if it had come after the delete.
        const index = await this.index(bucket);
        await rename(sidecarTemp, this.sidecarPath(bucket, key));
        const replaced = index.objects.get(key);
        if (replaced === undefined) index.sorted = undefined;
        index.objects.set(key, meta);
        return replaced;
      });
    } catch (err) {
      await rm(sidecarTemp, { force: true });
      await rm(join(dir, "data", meta.dataFile), { force: true });
      throw err;
    }
    if (previous) await unlink(join(dir, "data", previous.dataFile)).catch(() => undefined);
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
   * Opens the current bytes of `key`. Holding the descriptor keeps them readable even if a
   * concurrent put or delete replaces them meanwhile.
   */
  async open(bucket: string, key: string): Promise<{ meta: ObjectMeta; file: FileHandle } | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const meta = await this.head(bucket, key);
      if (!meta) return undefined;
      try {
        return { meta, file: await open(join(this.bucketDir(bucket), "data", meta.dataFile), "r") };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    return undefined;
  }

  /** Deletes `key`; true when it existed. */
  async delete(bucket: string, key: string): Promise<boolean> {
    return this.withBucketLock(bucket, async () => {
      const index = await this.index(bucket);
      const meta = index.objects.get(key);
      if (!meta) return false;
      await rm(this.sidecarPath(bucket, key), { force: true });
      index.objects.delete(key);
      index.sorted = undefined;
      await rm(join(this.bucketDir(bucket), "data", meta.dataFile), { force: true });
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
      const path = join(dir, "meta", name);
      const meta = JSON.parse(await readFile(path, "utf8")) as ObjectMeta;
      objects.set(meta.key, meta);
    }
    const referenced = new Set([...objects.values()].map((m) => m.dataFile));
    for (const file of await readdir(join(dir, "data")).catch(() => [] as string[])) {
      if (!referenced.has(file)) await rm(join(dir, "data", file), { force: true });
    }
    return { objects, sorted: undefined };
  }
}

/** S3 lists keys in the byte order of their UTF-8 encoding. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
