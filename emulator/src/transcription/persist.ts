import { randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";

/** Writes through a temporary file and a rename, so a crash leaves the old or the new content. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, JSON.stringify(value));
  await rename(tmp, path);
}

export async function readJsonIfExists(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Serialises writes of one file so a slow older write cannot land after a newer one. */
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();

  enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.tail.then(write, write);
    this.tail = next.catch(() => undefined);
    return next;
  }

  drain(): Promise<void> {
    return this.tail;
  }
}
