/**
 * Local files read by `check`: a Transcript's media, a BucketObject's file, every file of a
 * SyncedFolder. `check` is synchronous (provider/contract.ts), so hashes are computed with
 * synchronous reads through one buffer of this module, reused by every file: memory stays flat for
 * a 2 GB file, and ten thousand small files allocate nothing each. Results are cached per (path,
 * size, mtime, ctime, inode) because the engine calls check more than once per deployment (preview,
 * then up) and a large file should be read once.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { resolve } from "node:path";

const chunkBytes = 1024 * 1024;
let buffer: Buffer | undefined;

export type LocalStat =
  | { readonly kind: "file"; readonly size: number; readonly stats: Stats }
  | { readonly kind: "missing" }
  | { readonly kind: "not-a-file" };

/** Relative paths are taken from the program directory, where the provider host runs. */
export function resolveLocalPath(path: string): string {
  return resolve(path);
}

export function statLocal(path: string): LocalStat {
  let stats: Stats;
  try {
    stats = statSync(resolveLocalPath(path));
  } catch {
    return { kind: "missing" };
  }
  return stats.isFile() ? { kind: "file", size: stats.size, stats } : { kind: "not-a-file" };
}

const hashCache = new Map<string, string>();

function cacheKey(path: string, stats: Stats): string {
  return `${path}\0${stats.size}\0${stats.mtimeMs}\0${stats.ctimeMs}\0${stats.ino}`;
}

/** sha256 (hex) of the file's content; `stats` is what the caller's stat of it said. */
export function hashLocalFile(path: string, stats: Stats): string {
  const absolute = resolveLocalPath(path);
  const key = cacheKey(absolute, stats);
  const cached = hashCache.get(key);
  if (cached !== undefined) return cached;
  const digest = sha256OfFile(absolute);
  hashCache.set(key, digest);
  return digest;
}

/** sha256 (hex) of a file's content, read now (no cache: SyncedFolder keeps its own, synced-folder/hash-cache.ts). */
export function sha256OfFile(absolute: string): string {
  const hash = createHash("sha256");
  buffer ??= Buffer.allocUnsafeSlow(chunkBytes);
  const fd = openSync(absolute, "r");
  try {
    for (;;) {
      const read = readSync(fd, buffer, 0, chunkBytes, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** sha256 (hex) of a string's UTF-8 bytes. */
export function hashText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
