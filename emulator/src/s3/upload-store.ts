/**
 * Unfinished multipart uploads on disk:
 *   uploads/<bucket>/<uploadId>/upload.json      key, attributes, initiation time
 *   uploads/<bucket>/<uploadId>/part-<n>.json    part sidecar naming its data file
 *   uploads/<bucket>/<uploadId>/<uuid>           part bytes
 * Re-uploading a part replaces it atomically, like objects.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChecksumAlgorithm, Checksums, ChecksumType } from "./checksums.js";
import type { ObjectAttributes, ObjectStore } from "./object-store.js";

export interface UploadRecord {
  readonly uploadId: string;
  readonly key: string;
  /** ISO 8601 */
  readonly initiated: string;
  readonly attributes: ObjectAttributes;
  /** The checksum the client chose at creation; without one, the object gets S3's default. */
  readonly checksum?: { readonly algorithm: ChecksumAlgorithm; readonly type: ChecksumType };
}

export interface PartMeta {
  readonly partNumber: number;
  /** Quoted MD5 hex of the part. */
  readonly etag: string;
  readonly size: number;
  readonly checksums: Checksums;
  readonly lastModified: string;
  readonly dataFile: string;
}

const UPLOAD_ID = /^[0-9a-f]{32}$/;

export class UploadStore {
  constructor(private readonly objects: ObjectStore) {}

  private bucketDir(bucket: string): string {
    return join(this.objects.uploadsRoot(), bucket);
  }

  private uploadDir(bucket: string, uploadId: string): string {
    return join(this.bucketDir(bucket), uploadId);
  }

  /** Serialises part commits, completion and abort of one upload. */
  withUploadLock<T>(bucket: string, uploadId: string, task: () => Promise<T>): Promise<T> {
    return this.objects.withBucketLock(`${bucket}\u0000${uploadId}`, task);
  }

  async create(
    bucket: string,
    key: string,
    attributes: ObjectAttributes,
    checksum?: UploadRecord["checksum"],
  ): Promise<UploadRecord> {
    const record: UploadRecord = {
      uploadId: randomBytes(16).toString("hex"),
      key,
      initiated: new Date().toISOString(),
      attributes,
      ...(checksum ? { checksum } : {}),
    };
    const dir = this.uploadDir(bucket, record.uploadId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "upload.json"), JSON.stringify(record));
    return record;
  }

  async get(bucket: string, uploadId: string): Promise<UploadRecord | undefined> {
    if (!UPLOAD_ID.test(uploadId)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.uploadDir(bucket, uploadId), "upload.json"), "utf8")) as UploadRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }

  /** Moves a verified temp file in as part `partNumber`; false when the upload is gone meanwhile. */
  async commitPart(
    bucket: string,
    uploadId: string,
    tempFile: string,
    part: Omit<PartMeta, "dataFile" | "lastModified">,
  ): Promise<PartMeta | undefined> {
    return this.withUploadLock(bucket, uploadId, async () => {
      if (!(await this.get(bucket, uploadId))) return undefined;
      const dir = this.uploadDir(bucket, uploadId);
      const previous = (await this.parts(bucket, uploadId)).find((p) => p.partNumber === part.partNumber);
      const meta: PartMeta = { ...part, dataFile: randomUUID(), lastModified: new Date().toISOString() };
      await rename(tempFile, join(dir, meta.dataFile));
      const sidecarTemp = this.objects.tempPath();
      await writeFile(sidecarTemp, JSON.stringify(meta));
      await rename(sidecarTemp, join(dir, `part-${part.partNumber}.json`));
      if (previous) await rm(join(dir, previous.dataFile), { force: true });
      return meta;
    });
  }

  /** Parts in ascending part number. */
  async parts(bucket: string, uploadId: string): Promise<PartMeta[]> {
    const dir = this.uploadDir(bucket, uploadId);
    const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => /^part-\d+\.json$/.test(n));
    const parts = await Promise.all(
      names.map(async (n) => JSON.parse(await readFile(join(dir, n), "utf8")) as PartMeta),
    );
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  partPath(bucket: string, uploadId: string, part: PartMeta): string {
    return join(this.uploadDir(bucket, uploadId), part.dataFile);
  }

  async remove(bucket: string, uploadId: string): Promise<void> {
    await rm(this.uploadDir(bucket, uploadId), { recursive: true, force: true });
  }

  /** Unfinished uploads of a bucket, oldest key first (S3 orders by key, then initiation). */
  async list(bucket: string): Promise<UploadRecord[]> {
    const ids = await readdir(this.bucketDir(bucket)).catch(() => [] as string[]);
    const records = (await Promise.all(ids.map((id) => this.get(bucket, id)))).filter((r): r is UploadRecord => !!r);
    return records.sort((a, b) => (a.key === b.key ? a.initiated.localeCompare(b.initiated) : a.key < b.key ? -1 : 1));
  }

  async dropBucket(bucket: string): Promise<void> {
    await rm(this.bucketDir(bucket), { recursive: true, force: true });
  }
}
