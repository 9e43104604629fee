import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { ApiError, validationError } from "../api-error.js";
import { newUploadKey } from "../ids.js";
import { MAX_MEDIA_BYTES, UPLOAD_TTL_MS } from "./limits.js";
import { readJsonIfExists, writeJsonAtomic } from "./persist.js";

const UploadSlot = z.object({
  key: z.string(),
  tokenSha256: z.string(),
  expiresAt: z.number(),
  size: z.number().nullable(),
});
type UploadSlot = z.infer<typeof UploadSlot>;

/**
 * Bytes a file write may gather while the previous one is in flight. The default (16 KiB) is less
 * than one socket read (64 KiB), so every read became its own write, and the request was paused and
 * resumed around each: with 1 MiB, the reads that arrive during a write go out in one `writev`.
 */
const WRITE_BATCH_BYTES = 1024 * 1024;

/** An upload over the 2 GB limit, whether declared up front (`size`) or found while reading. */
export const uploadTooLarge = (): ApiError =>
  new ApiError(413, "too_large", "the file is over 2 GB; split or compress it and upload the parts");

/**
 * Upload slots (docs/api-contract.md §8.1): a key plus a one-time token carried in the uploadUrl.
 * Bytes go to `<dir>/<key>.bin`; slot metadata to `<dir>/<key>.json` when persistent. Only a hash
 * of the token is kept, so the token never sits on disk or in a log.
 */
export class UploadStore {
  private readonly slots = new Map<string, UploadSlot>();

  constructor(
    private readonly dir: string,
    private readonly persistent: boolean,
    /** The size limit (spec §8: 2 GB); smaller in tests, which cannot send 2 GB. */
    private readonly maxBytes: number = MAX_MEDIA_BYTES,
  ) {}

  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    if (!this.persistent) return;
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(".json")) continue;
      const parsed = UploadSlot.safeParse(await readJsonIfExists(join(this.dir, name)));
      if (parsed.success) this.slots.set(parsed.data.key, parsed.data);
    }
    await this.purgeExpired();
  }

  async create(): Promise<{ key: string; token: string; expiresAt: Date }> {
    const key = newUploadKey();
    const token = randomBytes(24).toString("base64url");
    const slot: UploadSlot = { key, tokenSha256: sha256(token), expiresAt: Date.now() + UPLOAD_TTL_MS, size: null };
    this.slots.set(key, slot);
    await this.persist(slot);
    return { key, token, expiresAt: new Date(slot.expiresAt) };
  }

  /** Streams a PUT body to disk, enforcing the 2 GB limit while reading. */
  async receive(key: string, token: string | null, req: IncomingMessage): Promise<number> {
    const slot = this.live(key);
    if (
      slot === undefined ||
      token === null ||
      !timingSafeEqual(Buffer.from(sha256(token), "hex"), Buffer.from(slot.tokenSha256, "hex"))
    ) {
      throw new ApiError(
        404,
        "not_found",
        "this upload URL is unknown, expired or already used; ask for a new one with POST /v1/transcripts/upload",
      );
    }
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > this.maxBytes) throw uploadTooLarge();
    const partial = join(this.dir, `${key}.${randomBytes(4).toString("hex")}.part`);
    let size = 0;
    try {
      // Counted beside the pipe rather than in a stage of it: a Transform or an async generator
      // per chunk costs CPU per 64 KiB that the sender, on the same small machine, then lacks.
      req.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxBytes) req.destroy(uploadTooLarge());
      });
      await pipeline(req, createWriteStream(partial, { highWaterMark: WRITE_BATCH_BYTES }));
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    await rename(partial, this.bytesPath(key));
    slot.size = size;
    await this.persist(slot);
    return size;
  }

  /**
   * Hands the uploaded file over to a transcript: moves it to `dest` and forgets the slot, so a
   * key is usable once.
   */
  async consume(key: string, dest: string): Promise<void> {
    const slot = this.live(key);
    if (slot === undefined) {
      throw validationError("uploadKey is unknown, expired or already used; upload the file again");
    }
    if (slot.size === null) {
      throw validationError("uploadKey has no file yet; PUT the file to its uploadUrl first");
    }
    this.slots.delete(key);
    await rename(this.bytesPath(key), dest);
    await rm(join(this.dir, `${key}.json`), { force: true });
  }

  async purgeExpired(): Promise<void> {
    const now = Date.now();
    for (const slot of [...this.slots.values()]) if (slot.expiresAt <= now) await this.drop(slot.key);
  }

  async clear(): Promise<void> {
    this.slots.clear();
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
  }

  private live(key: string): UploadSlot | undefined {
    const slot = this.slots.get(key);
    return slot !== undefined && slot.expiresAt > Date.now() ? slot : undefined;
  }

  private async drop(key: string): Promise<void> {
    this.slots.delete(key);
    await rm(this.bytesPath(key), { force: true });
    await rm(join(this.dir, `${key}.json`), { force: true });
  }

  private bytesPath(key: string): string {
    return join(this.dir, `${key}.bin`);
  }

  private async persist(slot: UploadSlot): Promise<void> {
    if (this.persistent) await writeJsonAtomic(join(this.dir, `${slot.key}.json`), slot);
  }
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
