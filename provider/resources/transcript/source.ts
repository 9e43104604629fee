import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { resolve } from "node:path";

/**
 * The local media file of a Transcript. `check` is synchronous (provider/contract.ts), so the hash is
 * computed with synchronous reads through one fixed buffer: memory stays flat for a 2 GB file.
 * Results are cached per (path, size, mtime, inode) because the engine calls check more than once
 * per deployment (preview, then up) and a large file should be read once.
 */

const chunkBytes = 1024 * 1024;

export type SourceStat =
  | { readonly kind: "file"; readonly size: number; readonly stats: Stats }
  | { readonly kind: "missing" }
  | { readonly kind: "not-a-file" };

/** Relative paths are taken from the program directory, where the provider host runs. */
export function resolveSourcePath(path: string): string {
  return resolve(path);
}

export function statSource(path: string): SourceStat {
  let stats: Stats;
  try {
    stats = statSync(resolveSourcePath(path));
  } catch {
    return { kind: "missing" };
  }
  return stats.isFile() ? { kind: "file", size: stats.size, stats } : { kind: "not-a-file" };
}

const hashCache = new Map<string, string>();

function cacheKey(path: string, stats: Stats): string {
  return `${path}\0${stats.size}\0${stats.mtimeMs}\0${stats.ino}`;
}

/** sha256 (hex) of the file's content. */
export function hashSource(path: string, stats: Stats): string {
  const absolute = resolveSourcePath(path);
  const key = cacheKey(absolute, stats);
  const cached = hashCache.get(key);
  if (cached) return cached;
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(chunkBytes);
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
  const digest = hash.digest("hex");
  hashCache.set(key, digest);
  return digest;
}
