// SyncedFolder's hash cache (provider/resources/synced-folder/hash-cache.ts): a scan of an unchanged
// folder reads no file, a changed file is read again, a file written within the racy window is
// never vouched for by the cache (git's racy rule, shown on a filesystem whose clock ticks every
// 2 s), and the cache can be turned off or fail to be written without changing any hash.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileFilter } from "../../provider/resources/synced-folder/globs.js";
import { hashCacheDir, hashCacheEnabled, racyMs } from "../../provider/resources/synced-folder/hash-cache.js";
import { scanFolder, type ScannedFolder, type ScanOptions } from "../../provider/resources/synced-folder/scan.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

let dir: string;
let cacheDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudplatform-folder-"));
  cacheDir = join(mkdtempSync(join(tmpdir(), "cloudplatform-home-")), "hashes");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(cacheDir, ".."), { recursive: true, force: true });
});

/** Files written a minute ago: older than the racy window, as a folder that is not being edited. */
function oldFiles(tree: Record<string, string>): void {
  const past = new Date(Date.now() - 60_000);
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
    utimesSync(join(dir, path), past, past);
  }
}

function scan(options: ScanOptions = {}, exclude: string[] = []): ScannedFolder {
  const result = scanFolder(dir, fileFilter([], exclude), { cacheDir, ...options });
  if (result.kind !== "files") throw new Error(`scan found ${result.kind}`);
  return result;
}

const hashesOf = (s: ScannedFolder) => Object.fromEntries([...s.files].map(([p, f]) => [p, f.sha256]));

describe("the hash cache", () => {
  it("lets a scan of an unchanged folder read no file, with the same hashes", () => {
    oldFiles({ "a.html": "a", "b/c.css": "c", "b/d/e.js": "e" });
    const first = scan();
    expect(first.hashed).toBe(3);
    const second = scan();
    expect(second.hashed).toBe(0);
    expect(second.digest).toBe(first.digest);
    expect(hashesOf(second)).toEqual({ "a.html": sha("a"), "b/c.css": sha("c"), "b/d/e.js": sha("e") });
  });

  it("reads again a file whose size, times or inode changed, and only that one", () => {
    oldFiles({ "a.html": "a", "b.css": "b", "c.js": "c" });
    scan();
    oldFiles({ "b.css": "B" }); // same size, an older time set again: the change time moved
    oldFiles({ "c.js": "longer" });
    const again = scan();
    expect(again.hashed).toBe(2);
    expect(hashesOf(again)).toEqual({ "a.html": sha("a"), "b.css": sha("B"), "c.js": sha("longer") });
    rmSync(join(dir, "a.html"));
    oldFiles({ "x.tmp": "a" });
    renameSync(join(dir, "x.tmp"), join(dir, "a.html")); // a new file under the old name: another inode
    expect(scan().hashed).toBe(1);
  });

  it("never vouches for a file written within the racy window: rewritten in the same tick, it is read again", () => {
    // A filesystem whose timestamps tick every 2 s (FAT): two writes a few milliseconds apart
    // leave the same size, times and inode, and only the content tells them apart.
    const tick = 2_000_000_000n;
    const coarse = (path: string) => {
      const s = statSync(path, { bigint: true });
      return Object.assign(Object.create(Object.getPrototypeOf(s) as object) as typeof s, s, {
        mtimeNs: (s.mtimeNs / tick) * tick,
        ctimeNs: (s.ctimeNs / tick) * tick,
      });
    };
    const file = join(dir, "config.json");
    for (let attempt = 1; ; attempt++) {
      writeFileSync(file, '{"v":1}');
      const before = coarse(file);
      expect(hashesOf(scan({ stat: coarse }))["config.json"]).toBe(sha('{"v":1}'));
      writeFileSync(file, '{"v":2}');
      const after = coarse(file);
      const sameTick = before.mtimeNs === after.mtimeNs && before.ctimeNs === after.ctimeNs && before.ino === after.ino;
      // The premise: a stat cannot tell the two versions apart. Retried when the tick turned between them.
      if (!sameTick && attempt < 5) continue;
      expect(sameTick).toBe(true);
      break;
    }
    const rescanned = scan({ stat: coarse });
    expect(rescanned.hashed).toBe(1);
    expect(hashesOf(rescanned)["config.json"]).toBe(sha('{"v":2}'));
    // Once the file is older than the window, its hash is kept and trusted.
    const later = () => Date.now() + racyMs + 2_000;
    expect(scan({ stat: coarse, now: later }).hashed).toBe(1);
    expect(scan({ stat: coarse, now: later }).hashed).toBe(0);
  });

  it("keeps the entries of files the patterns leave out, and drops those of files gone", () => {
    oldFiles({ "a.html": "a", "a.map": "m", "old.txt": "o" });
    scan();
    expect(scan({}, ["*.map"]).hashed).toBe(0);
    expect(scan().hashed).toBe(0);
    rmSync(join(dir, "old.txt"));
    scan();
    oldFiles({ "old.txt": "o" });
    expect(scan().hashed).toBe(1);
  });

  it("starts again from a cache file of another folder or another version", () => {
    oldFiles({ "a.html": "a" });
    scan();
    const [name] = readdirSync(cacheDir);
    writeFileSync(join(cacheDir, name as string), "cloudplatform-hashes 0\t/elsewhere\nnot\ta\tline\n");
    expect(scan().hashed).toBe(1);
    expect(scan().hashed).toBe(0);
  });

  it("is off with CLOUDPLATFORM_HASH_CACHE=off, and a cache that cannot be written changes no hash", () => {
    expect(hashCacheEnabled({ CLOUDPLATFORM_HASH_CACHE: "off" })).toBe(false);
    expect(hashCacheEnabled({})).toBe(true);
    expect(hashCacheDir({ PULUMI_HOME: "/home/u/.pulumi-x" })).toBe("/home/u/.pulumi-x/cloudplatform/hashes");
    oldFiles({ "a.html": "a" });
    expect(scan({ cacheDir: undefined }).hashed).toBe(1);
    expect(scan({ cacheDir: undefined }).hashed).toBe(1);
    const problems: string[] = [];
    writeFileSync(join(cacheDir, "..", "not-a-dir"), "");
    const blocked = join(cacheDir, "..", "not-a-dir", "hashes");
    const s = scan({ cacheDir: blocked, onProblem: (m) => problems.push(m) });
    expect(hashesOf(s)).toEqual({ "a.html": sha("a") });
    expect(problems[0]).toContain("cannot write the hash cache");
  });
});
