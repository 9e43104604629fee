/**
 * The files of a SyncedFolder's folder, as check sees them: every regular file below it that the
 * patterns keep, by its path relative to the folder (with `/`), with its SHA-256 and size, sorted by
 * path, and the digest of them all (manifest.ts). Symbolic links are followed (a folder linked twice
 * is read once); other special files are left out. Synchronous, as check is: the hashes come from
 * the shared reader of local files, which reads a file once per process however often the engine
 * calls check.
 */
import { readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { hashLocalFile } from "../local-files.js";
import type { Matcher } from "./globs.js";
import { digestOf, type LocalFile, type LocalFiles } from "./manifest.js";

export interface ScannedFolder {
  readonly kind: "files";
  readonly files: LocalFiles;
  /** `manifestDigest`: `<n> files, sha256:<hex>`. */
  readonly digest: string;
}

export type ScanResult = ScannedFolder | { readonly kind: "missing" | "not-a-folder" };

export function scanFolder(root: string, keep: Matcher): ScanResult {
  let rootStats: Stats;
  try {
    rootStats = statSync(root);
  } catch {
    return { kind: "missing" };
  }
  if (!rootStats.isDirectory()) return { kind: "not-a-folder" };
  const found: [string, LocalFile][] = [];
  const seen = new Set<string>([realpathSync(root)]);
  const walk = (dir: string, relative: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      let stats: Stats;
      try {
        stats = statSync(path);
      } catch {
        continue; // a dangling link, or removed meanwhile
      }
      if (stats.isDirectory()) {
        const real = realpathSync(path);
        if (seen.has(real)) continue;
        seen.add(real);
        walk(path, rel);
      } else if (stats.isFile() && keep(rel)) {
        found.push([rel, { sha256: hashLocalFile(path, stats), size: stats.size }]);
      }
    }
  };
  walk(root, "");
  found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const files = new Map(found);
  return { kind: "files", files, digest: digestOf(files) };
}
