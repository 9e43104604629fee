/**
 * A BucketObject's `sourceUrl`: downloaded to a temporary file, hashed on the way, then uploaded
 * like a local file. The hash must be known before the upload starts (it travels in the object's
 * metadata and as its checksum), and a temporary file keeps memory flat whatever the size.
 */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { SourceMissingError } from "../../errors.js";

export interface Downloaded {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** Runs `work` with the body of `url` in a temporary file, removed after. */
export async function withDownload<T>(url: string, work: (file: Downloaded) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "cloudplatform-object-"));
  try {
    const path = join(dir, "body");
    const answer = await fetch(url, { redirect: "follow" }).catch((err: unknown) => {
      throw new SourceMissingError(
        `cannot fetch sourceUrl (${(err as { cause?: { code?: string } })?.cause?.code ?? "no answer"})`,
        "Check that the URL is reachable from this machine.",
      );
    });
    if (!answer.ok || answer.body === null) {
      throw new SourceMissingError(
        `sourceUrl answered ${answer.status}`,
        "Check the URL: its body is the object's content.",
      );
    }
    const hash = createHash("sha256");
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(
      Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream),
      tap,
      createWriteStream(path),
    );
    return await work({ path, size, sha256: hash.digest("hex") });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
