/**
 * The objects of a bucket, read for the console from the S3 plane's files without going through
 * S3 (which would need a bucket's secret, count in the stats and draw faults). It follows the
 * layout that object-store.ts writes, so it lives beside it; the console knows only the contract
 * (ObjectListing in ../interfaces.ts): `<dataDir>/s3/objects/<bucket>/meta/<sha256(key)>.json` is
 * a JSON line describing the object (ObjectMeta), followed by the bytes of a small object; a larger
 * one names its bytes in `data/`. It only reads: files appear and go away by rename and unlink
 * there, so a file vanishing under a read is an object replaced or deleted meanwhile.
 */
import { createHash } from "node:crypto";
import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { BucketListing, ObjectListing, ObjectSummary, OpenedObject } from "../interfaces.js";
import { compareKeys, type ObjectMeta } from "./object-store.js";

/** How many sidecars one listing reads at most: a console is no place to page through a million keys. */
export const MAX_SCANNED = 10_000;

const NEWLINE = 0x0a;

export class ObjectReader implements ObjectListing {
  constructor(private readonly dataDir: string) {}

  async list(bucket: string, limit: number): Promise<BucketListing> {
    const names = await readdir(this.metaDir(bucket)).catch(() => [] as string[]);
    const sidecars = names.filter((name) => name.endsWith(".json"));
    const scanned = sidecars.slice(0, MAX_SCANNED);
    const found: ObjectSummary[] = [];
    for (const name of scanned) {
      const sidecar = await this.readSidecar(join(this.metaDir(bucket), name));
      if (sidecar !== undefined) found.push(summarize(sidecar.meta));
    }
    found.sort((a, b) => compareKeys(a.key, b.key));
    const complete = scanned.length === sidecars.length;
    return {
      count: complete ? found.length : sidecars.length,
      bytes: complete ? found.reduce((sum, o) => sum + o.size, 0) : null,
      objects: found.slice(0, limit),
      truncated: !complete || found.length > limit,
    };
  }

  /** The current bytes of `key`, or undefined when there is no such object. */
  async open(bucket: string, key: string): Promise<OpenedObject | undefined> {
    const name = `${createHash("sha256").update(key, "utf8").digest("hex")}.json`;
    // A put or delete between reading the sidecar and opening its data file: read the sidecar again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const sidecar = await this.readSidecar(join(this.metaDir(bucket), name));
      if (sidecar === undefined || sidecar.meta.key !== key) return undefined;
      const summary = summarize(sidecar.meta);
      if (sidecar.meta.dataFile === undefined) return { summary, bytes: sidecar.rest };
      try {
        return { summary, file: await open(join(this.bucketDir(bucket), "data", sidecar.meta.dataFile), "r") };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    return undefined;
  }

  private bucketDir(bucket: string): string {
    return join(this.dataDir, "s3", "objects", bucket);
  }

  private metaDir(bucket: string): string {
    return join(this.bucketDir(bucket), "meta");
  }

  private async readSidecar(path: string): Promise<{ meta: ObjectMeta; rest: Buffer } | undefined> {
    let text: Buffer;
    try {
      text = await readFile(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    const newline = text.indexOf(NEWLINE);
    const meta = JSON.parse(text.toString("utf8", 0, newline < 0 ? text.length : newline)) as ObjectMeta;
    return { meta, rest: newline < 0 ? Buffer.alloc(0) : text.subarray(newline + 1) };
  }
}

function summarize(meta: ObjectMeta): ObjectSummary {
  return {
    key: meta.key,
    size: meta.size,
    content_type: meta.contentType,
    last_modified: meta.lastModified,
    etag: meta.etag,
  };
}
