/** Getting bytes into a temp file: from a request body, or from a stored file (copies). */
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm, writeFile, type FileHandle } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { declaredLength, receiveBody, receiveToMemory, type ChecksumPolicy, type ReceivedBody } from "./body.js";
import type { S3Call } from "./call.js";
import { createChecksummer, type ChecksumAlgorithm, type Checksums } from "./checksums.js";
import { INLINE_MAX_BYTES, type NewBytes, type StoredObject } from "./object-store.js";

/** The largest single PUT (object or part) S3 accepts. */
const MAX_PUT_BYTES = 5 * 1024 ** 3;

/**
 * Bytes a file sink buffers before it pushes back. Socket reads arrive in chunks of at most 64 KiB;
 * with room for 1 MiB, the chunks that arrive while one write is under way go to disk together in
 * one writev, instead of one thread-pool round trip per chunk.
 */
export const FILE_BUFFER_BYTES = 1024 * 1024;

/**
 * Receives and verifies a PutObject body: into memory when it declares at most INLINE_MAX_BYTES (the
 * store then keeps it in its sidecar), else into a temp file. The caller commits or discards it.
 */
export async function receiveObject(
  call: S3Call,
  policy: ChecksumPolicy,
): Promise<{ source: NewBytes; body: ReceivedBody }> {
  const declared = declaredLength(call.req, call.auth.payload);
  if (declared !== undefined && declared <= INLINE_MAX_BYTES) {
    const { bytes, body } = await receiveToMemory(call.req, call.auth.payload, INLINE_MAX_BYTES, policy);
    return { source: { bytes }, body };
  }
  const { tempFile, body } = await receiveToTemp(call, policy);
  return { source: { tempFile }, body };
}

/** Receives and verifies the request body into a temp file; the caller commits or removes it. */
export async function receiveToTemp(
  call: S3Call,
  policy: ChecksumPolicy,
): Promise<{ tempFile: string; body: ReceivedBody }> {
  const tempFile = call.store.tempPath();
  try {
    const body = await receiveBody(
      call.req,
      call.auth.payload,
      createWriteStream(tempFile, { highWaterMark: FILE_BUFFER_BYTES }),
      MAX_PUT_BYTES,
      policy,
    );
    return { tempFile, body };
  } catch (err) {
    await rm(tempFile, { force: true });
    throw err;
  }
}

/**
 * Copies bytes [start, end] of a stored object into a temp file; returns it with the MD5 of what was
 * copied and its `algorithm` checksum, when one is asked for.
 */
export async function copyToTemp(
  call: S3Call,
  stored: StoredObject,
  start: number,
  end: number,
  algorithm?: ChecksumAlgorithm,
): Promise<{ tempFile: string; md5Hex: string; size: number; checksums: Checksums }> {
  const tempFile = call.store.tempPath();
  const md5 = createHash("md5");
  const summer = algorithm === undefined ? undefined : createChecksummer(algorithm);
  const checksums = (): Checksums => (algorithm === undefined ? {} : { [algorithm]: summer!.digest() });
  let size = 0;
  try {
    if (stored.bytes) {
      const bytes = stored.bytes.subarray(start, end + 1);
      await writeFile(tempFile, bytes);
      summer?.update(bytes);
      return { tempFile, md5Hex: md5.update(bytes).digest("hex"), size: bytes.length, checksums: checksums() };
    }
    await pipeline(
      stored.file.createReadStream({ start, end, autoClose: false }),
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          summer?.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      }),
      createWriteStream(tempFile),
    );
    return { tempFile, md5Hex: md5.digest("hex"), size, checksums: checksums() };
  } catch (err) {
    await rm(tempFile, { force: true });
    throw err;
  }
}

/**
 * Sends bytes [start, end] of `file` as the rest of `res`, through at most two buffers that are
 * reused: one is read into while the other is being written. A stream of fresh 1 MiB buffers (a
 * file ReadStream) made V8 run a full mark-compact every few dozen MiB of a large download, for
 * memory it can only count, not move. Rejects when the client goes away (the pending write fails).
 */
export async function sendFileRange(file: FileHandle, start: number, end: number, res: ServerResponse): Promise<void> {
  const total = end - start + 1;
  const size = Math.min(FILE_BUFFER_BYTES, total);
  const buffers = size === total ? [Buffer.allocUnsafe(size)] : [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let position = start;
  let previous: Promise<void> = Promise.resolve();
  for (let turn = 0; position <= end; turn++) {
    // Free: its last write was awaited before the previous turn wrote the other buffer.
    const buffer = buffers[turn % buffers.length]!;
    const { bytesRead } = await file.read(buffer, 0, Math.min(size, end - position + 1), position);
    if (bytesRead === 0) throw new Error(`the data file ends at byte ${position}, before the object's ${end + 1}`);
    await previous;
    position += bytesRead;
    previous = writeChunk(res, buffer.subarray(0, bytesRead));
    // Awaited next turn; until then a failed write must not count as an unhandled rejection.
    previous.catch(() => undefined);
  }
  await previous;
  res.end();
}

/**
 * Resolves once `chunk` was handed to the socket, so that its buffer may be reused. Rejects when the
 * response closes first: a write callback is not always called when the client's socket is
 * destroyed while the write waits, and a download waiting on it forever kept its file open.
 */
function writeChunk(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const closed = (): void => reject(prematureClose());
    if (res.destroyed) return closed();
    res.once("close", closed);
    res.write(chunk, (err) => {
      res.off("close", closed);
      if (err) reject(err);
      else resolve();
    });
  });
}

/** The error a stream reports for a peer that left before the end (the caller treats it as normal). */
function prematureClose(): Error {
  return Object.assign(new Error("the client closed the connection before the download ended"), {
    code: "ERR_STREAM_PREMATURE_CLOSE",
  });
}

/** Runs `commit` (which moves the received bytes into place), removing a temp file if it fails. */
export async function commitOrDiscard<T>(source: NewBytes, commit: () => Promise<T>): Promise<T> {
  try {
    return await commit();
  } catch (err) {
    if ("tempFile" in source) await rm(source.tempFile, { force: true });
    throw err;
  }
}
