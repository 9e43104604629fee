/**
 * The files of a SyncedFolder's folder, as check sees them: every regular file below it that the
 * patterns keep, by its path relative to the folder (with `/`), with its SHA-256 and size. Symbolic
 * links are followed (a folder linked twice is read once); other special files are left out.
 * Synchronous, as check is: the hashes come from the shared reader of local files, which reads a
 * file once per process however often the engine calls check.
 */
import { readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { hashLocalFile } from "../local-files.js";
import type { Matcher } from "./globs.js";
import { entryOf } from "./manifest.js";

export type ScanResult =
  { readonly kind: "files"; readonly files: Record<string, string> } | { readonly kind: "missing" | "not-a-folder" };

export function scanFolder(root: string, keep: Matcher): ScanResult {
  let rootStats: Stats;
  try {
    rootStats = statSync(root);
  } catch {
    return { kind: "missing" };
  }
  if (!rootStats.isDirectory()) return { kind: "not-a-folder" };
  const found: [string, string][] = [];
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
        found.push([rel, entryOf(hashLocalFile(path, stats), stats.size)]);
      }
    }
  };
  walk(root, "");
  found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { kind: "files", files: Object.fromEntries(found) };
}
