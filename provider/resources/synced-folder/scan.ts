/**
 * The files of a SyncedFolder's folder, as check sees them: every regular file below it that the
 * patterns keep, by its path relative to the folder (with `/`), with its SHA-256 and size, sorted by
 * path, and the digest of them all (manifest.ts). Symbolic links are followed (a folder linked twice
 * is read once); other special files are left out. A file's content is read only when this
 * machine's hash cache (hash-cache.ts) has no hash for it as it is now. Synchronous, as check is.
 */
import { readdirSync, realpathSync, statSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { sha256OfFile } from "../local-files.js";
import type { Matcher } from "./globs.js";
import { HashCache, hashCacheDir, hashCacheEnabled } from "./hash-cache.js";
import { digestOf, type LocalFile, type LocalFiles } from "./manifest.js";

export interface ScannedFolder {
  readonly kind: "files";
  readonly files: LocalFiles;
  /** `manifestDigest`: `<n> files, sha256:<hex>`. */
  readonly digest: string;
  /** Files whose content was read (the others' hashes came from the cache). */
  readonly hashed: number;
}

export type ScanResult = ScannedFolder | { readonly kind: "missing" | "not-a-folder" };

export interface ScanOptions {
  /** Where the hash cache lives; undefined: none. @default under PULUMI_HOME, unless turned off */
  readonly cacheDir?: string | undefined;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** A stat that follows links (tests: a filesystem with coarse timestamps). @default statSync */
  readonly stat?: (path: string) => BigIntStats;
  readonly onProblem?: (message: string) => void;
}

const defaultStat = (path: string) => statSync(path, { bigint: true });

export function defaultCacheDir(): string | undefined {
  return hashCacheEnabled() ? hashCacheDir() : undefined;
}

export function scanFolder(root: string, keep: Matcher, options: ScanOptions = {}): ScanResult {
  const stat = options.stat ?? defaultStat;
  // Before any stat: the hash cache's racy rule measures from here.
  const startedMs = (options.now ?? Date.now)();
  let rootStats: BigIntStats;
  try {
    rootStats = stat(root);
  } catch {
    return { kind: "missing" };
  }
  if (!rootStats.isDirectory()) return { kind: "not-a-folder" };
  const real = realpathSync(root);
  const cache = new HashCache(real, {
    dir: "cacheDir" in options ? options.cacheDir : defaultCacheDir(),
    startedMs,
    ...(options.onProblem === undefined ? {} : { onProblem: options.onProblem }),
  });
  const found: [string, LocalFile][] = [];
  const seen = new Set<string>([real]);
  let hashed = 0;
  const walk = (dir: string, relative: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      let stats: BigIntStats;
      try {
        stats = stat(path);
      } catch {
        continue; // a dangling link, or removed meanwhile
      }
      if (stats.isDirectory()) {
        const target = realpathSync(path);
        if (seen.has(target)) continue;
        seen.add(target);
        walk(path, rel);
      } else if (!stats.isFile()) {
        continue;
      } else if (!keep(rel)) {
        cache.keep(rel);
      } else {
        const fileStat = { size: Number(stats.size), mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs, ino: stats.ino };
        let sha256 = cache.lookup(rel, fileStat);
        if (sha256 === undefined) {
          sha256 = sha256OfFile(path);
          cache.record(rel, fileStat, sha256);
          hashed++;
        }
        found.push([rel, { sha256, size: fileStat.size }]);
      }
    }
  };
  walk(root, "");
  cache.save();
  found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const files = new Map(found);
  return { kind: "files", files, digest: digestOf(files), hashed };
}
