/**
 * This machine's hash cache of a folder, as git's index keeps one: each file's SHA-256 with what a
 * stat of the file said when it was hashed (size, modification and change times in nanoseconds,
 * inode). A scan whose stat of a file still says exactly that takes the hash from here and reads
 * none of the file's content, so a preview of an unchanged folder of 10,000 files costs 10,000
 * stats instead of reading every byte (bench/README.md, rows folder-nochange-*).
 *
 * Why a hit is safe: any write to a file sets its modification time to the time of the write. A hash
 * is recorded only when the file's modification time is at least `racyMs` older than the moment the
 * scan started (before its stat): a later write then leaves a later time, which no longer matches.
 * A file modified within `racyMs` of the scan ("racy", git's word) could still be written again
 * within the same tick of a coarse clock (FAT's timestamps tick every 2 s), same size, same times:
 * its hash is not recorded, and the next scan reads it again. The SHA-256 decides every change; the
 * cache only says when it need not be computed again. The times are compared with this machine's
 * clock: a folder on a network share whose server's clock is off by more than a second should turn
 * the cache off (`CLOUDPLATFORM_HASH_CACHE=off`, docs/objects.md).
 *
 * One file per folder (by its real path) under `${PULUMI_HOME:-~/.pulumi}/cloudplatform/hashes/`,
 * written whole (temporary file, then rename) and only when a scan changed it. It holds paths,
 * sizes, times and hashes: nothing secret. A cache that cannot be read or written only costs time.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cloudplatformHome } from "../../journal.js";
import { escapePath, unescapePath } from "./manifest.js";

/** What a stat said of a file: a hash is reused only while it says the same. */
export interface FileStat {
  readonly size: number;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
}

interface Entry extends FileStat {
  readonly sha256: string;
}

/** The coarsest file timestamps in use (FAT: 2 s), and a second more for clocks. */
export const racyMs = 3000;

const header = "cloudplatform-hashes 1";
/** Cache files of folders no scan has written for this long are removed. */
const maxAgeMs = 30 * 24 * 3600 * 1000;

/** Whether the environment turns the cache off (`CLOUDPLATFORM_HASH_CACHE=off`). */
export function hashCacheEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env["CLOUDPLATFORM_HASH_CACHE"] ?? "").trim().toLowerCase();
  return !["off", "0", "false", "no"].includes(value);
}

export function hashCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cloudplatformHome(env), "hashes");
}

export interface HashCacheOptions {
  /** Where cache files live; undefined: no cache (every file is hashed). */
  readonly dir: string | undefined;
  /** When the scan started, epoch milliseconds, taken before any stat. */
  readonly startedMs: number;
  /** Told when the cache cannot be written (the scan goes on without it). */
  readonly onProblem?: (message: string) => void;
}

/** The cache of one folder during one scan: `lookup` and `record` per file, then `save`. */
export class HashCache {
  private readonly entries = new Map<string, Entry>();
  private readonly present = new Set<string>();
  private changed = false;
  private readonly file: string | undefined;
  private readonly racyFromNs: bigint;

  constructor(
    private readonly root: string,
    private readonly options: HashCacheOptions,
  ) {
    this.racyFromNs = BigInt(Math.floor(options.startedMs - racyMs)) * 1_000_000n;
    const digest = createHash("sha256").update(root).digest("hex").slice(0, 24);
    this.file = options.dir === undefined ? undefined : join(options.dir, `${digest}.tsv`);
    if (this.file !== undefined) this.load(this.file);
  }

  /** The hash recorded for `path` if its file is still what was hashed. */
  lookup(path: string, stat: FileStat): string | undefined {
    this.present.add(path);
    const e = this.entries.get(path);
    if (e === undefined) return undefined;
    const same = e.size === stat.size && e.mtimeNs === stat.mtimeNs && e.ctimeNs === stat.ctimeNs && e.ino === stat.ino;
    return same ? e.sha256 : undefined;
  }

  /** A file the scan saw but does not sync (left out by the patterns): its entry is kept. */
  keep(path: string): void {
    this.present.add(path);
  }

  /** A hash computed from the content read after `stat`; kept unless the file is racy. */
  record(path: string, stat: FileStat, sha256: string): void {
    this.present.add(path);
    if (stat.mtimeNs >= this.racyFromNs) {
      if (this.entries.delete(path)) this.changed = true;
      return;
    }
    this.entries.set(path, { ...stat, sha256 });
    this.changed = true;
  }

  /** Writes the cache when the scan changed it; entries of files gone from the folder are dropped. */
  save(): void {
    for (const path of this.entries.keys()) {
      if (!this.present.has(path)) {
        this.entries.delete(path);
        this.changed = true;
      }
    }
    if (this.file === undefined || this.options.dir === undefined || !this.changed) return;
    const lines = [`${header}\t${escapePath(this.root)}\n`];
    for (const [path, e] of this.entries) {
      lines.push(`${e.sha256}\t${e.size}\t${e.mtimeNs}\t${e.ctimeNs}\t${e.ino}\t${escapePath(path)}\n`);
    }
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(this.options.dir, { recursive: true, mode: 0o700 });
      writeFileSync(temporary, lines.join(""), { mode: 0o600 });
      renameSync(temporary, this.file);
      this.changed = false;
    } catch (err) {
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Nothing was written there, or nothing can be.
      }
      this.options.onProblem?.(`cannot write the hash cache in ${this.options.dir} (${(err as Error).message})`);
    }
    pruneOnce(this.options.dir);
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return;
    }
    const lines = text.split("\n");
    // Another folder's file under the same name, or another version's: started again.
    if (lines[0] !== `${header}\t${escapePath(this.root)}`) return;
    for (let i = 1; i < lines.length; i++) {
      const fields = (lines[i] as string).split("\t");
      if (fields.length !== 6) continue;
      const [sha256, size, mtimeNs, ctimeNs, ino, path] = fields as [string, string, string, string, string, string];
      try {
        this.entries.set(unescapePath(path), {
          sha256,
          size: Number(size),
          mtimeNs: BigInt(mtimeNs),
          ctimeNs: BigInt(ctimeNs),
          ino: BigInt(ino),
        });
      } catch {
        // A line cut short by a full disk: that file is hashed again.
      }
    }
  }
}

let pruned = false;

/** Once per process: removes the cache files of folders not scanned for `maxAgeMs`, and stale temporaries. */
function pruneOnce(dir: string): void {
  if (pruned) return;
  pruned = true;
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const age = now - statSync(path).mtimeMs;
      if (age > maxAgeMs || (name.endsWith(".tmp") && age > 3600_000)) rmSync(path, { force: true });
    }
  } catch {
    // Another process pruned meanwhile, or the directory cannot be read: nothing to do.
  }
}
