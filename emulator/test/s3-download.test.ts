/**
 * Downloads go out through two reused buffers (s3/transfer.ts sendFileRange): a reader slower than
 * the disk must still get every byte of every range exactly, and a reader that leaves mid-way must
 * not leave the request (and its open file) hanging.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3Client, startPlane, type RunningPlane } from "./s3-helpers.js";

let p: RunningPlane;
let alpha: S3Client;
// Several of the plane's 1 MiB buffers, and not a multiple of them.
const object = randomBytes(5 * 1024 * 1024 + 12_345);

beforeAll(async () => {
  p = await startPlane();
  alpha = s3Client(p.url, p.alpha);
  await alpha.send(new PutObjectCommand({ Bucket: "alpha", Key: "big.bin", Body: object }));
});
afterAll(async () => {
  alpha.destroy();
  await p.close();
});

/** Reads the body in small pieces with pauses, so that the server's writes back up. */
async function readSlowly(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  let received = 0;
  for await (const chunk of body) {
    parts.push(chunk as Buffer);
    received += (chunk as Buffer).length;
    if (received > 256 * 1024) {
      received = 0;
      await sleep(5);
    }
  }
  return Buffer.concat(parts);
}

describe("S3 downloads", () => {
  it.each([
    ["the whole object", undefined, 0, object.length - 1],
    ["a range across buffer boundaries", "bytes=1000-3146999", 1000, 3146999],
    ["a range inside one buffer", "bytes=2097152-2097161", 2097152, 2097161],
    ["the last bytes", "bytes=-70000", object.length - 70000, object.length - 1],
  ])("sends %s byte for byte to a slow reader", async (_what, range, start, end) => {
    const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "big.bin", Range: range }));
    const bytes = await readSlowly(got.Body as Readable);
    expect(bytes.length).toBe(end - start + 1);
    expect(bytes.equals(object.subarray(start, end + 1))).toBe(true);
  });

  it("finishes the request when the reader leaves mid-download, and serves the next one", async () => {
    // The hang this guards against was a race (a write whose callback never came once the client's
    // socket was gone): one abandoned download hit it now and then, forty in a row nearly always.
    for (let round = 0; round < 40; round++) {
      const abort = new AbortController();
      const got = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "big.bin" }), {
        abortSignal: abort.signal,
      });
      const body = got.Body as Readable;
      await new Promise<void>((resolve) => body.once("data", () => resolve()));
      // Leave at different points of the server's writes: at once, or after it has filled buffers.
      if (round % 3 === 1) await sleep(round % 7);
      body.pause();
      abort.abort();
      body.destroy();
      // close() waits for every request in flight: it resolves only if the abandoned one ended.
      const closed = await Promise.race([p.plane.close().then(() => true), sleep(5_000).then(() => false)]);
      expect(closed, `abandoned download ${round} still in flight after 5 s`).toBe(true);
    }
    const again = await alpha.send(new GetObjectCommand({ Bucket: "alpha", Key: "big.bin", Range: "bytes=0-9" }));
    expect(Buffer.from(await again.Body!.transformToByteArray()).equals(object.subarray(0, 10))).toBe(true);
  }, 60_000);
});
