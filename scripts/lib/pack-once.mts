// Packing is the same work for every test file of one run: the plugin tarball, the npm package and
// the emulator's are made from the build that `npm test` makes once before vitest starts. So within
// one run each is packed once and copied to every file that asks (six files pack the plugin, three
// the packages). `npm test` names the run's cache folder in CLOUDPLATFORM_PACK_CACHE; a file run any
// other way (no variable) packs for itself, as before. Files run in parallel workers: the first to
// ask packs under a lock folder, the others wait for its `done` marker.
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The variable scripts/test.sh sets to the run's cache folder. */
export const packCacheVariable = "CLOUDPLATFORM_PACK_CACHE";

const waitLimitMs = 15 * 60_000;

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The files `pack(dir)` writes into a folder, made once per run under `key` and copied into
 * `outDir`; their paths there, in `pack`'s order. Without a run cache, `pack(outDir)` itself.
 */
export async function packOnce(
  key: string,
  outDir: string,
  pack: (dir: string) => Promise<readonly string[]>,
): Promise<string[]> {
  const cache = process.env[packCacheVariable];
  if (!cache) return [...(await pack(outDir))];
  const slot = path.join(cache, createHash("sha256").update(key).digest("hex").slice(0, 16));
  const done = path.join(slot, "done.json");
  await mkdir(cache, { recursive: true });
  let mine = false;
  try {
    await mkdir(slot);
    mine = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (mine) {
    try {
      const made = await pack(path.join(slot, "files"));
      await writeFile(done, JSON.stringify(made.map((file) => path.relative(slot, file))));
    } catch (error) {
      // Waiting files would wait in vain: let them pack for themselves.
      await writeFile(done, JSON.stringify({ failed: String(error) }));
      throw error;
    }
  } else {
    const started = Date.now();
    while (!(await exists(done))) {
      if (Date.now() - started > waitLimitMs) throw new Error(`${key}: another test file's pack did not end in 15 min`);
      await sleep(250);
    }
  }
  const recorded = JSON.parse(await readFile(done, "utf8")) as string[] | { failed: string };
  if (!Array.isArray(recorded)) {
    if (mine) throw new Error(recorded.failed);
    return [...(await pack(outDir))];
  }
  await mkdir(outDir, { recursive: true });
  const copies: string[] = [];
  for (const relative of recorded) {
    const copy = path.join(outDir, path.basename(relative));
    await copyFile(path.join(slot, relative), copy);
    copies.push(copy);
  }
  return copies;
}
