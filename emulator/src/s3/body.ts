/**
 * Receives a request body into a sink while hashing it, then checks every integrity claim the client
 * made (x-amz-content-sha256, Content-MD5, x-amz-checksum-*, trailing checksums, decoded length)
 * before the caller commits anything. Bytes flow through in the chunks the socket delivers.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Transform, Writable, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AwsChunkedDecoder } from "./aws-chunked.js";
import {
  createChecksummer,
  isChecksumAlgorithm,
  type ChecksumAlgorithm,
  type Checksummer,
  type Checksums,
} from "./checksums.js";
import { S3Error } from "./errors.js";
import type { PayloadProtection } from "./sigv4.js";

export interface ReceivedBody {
  readonly size: number;
  readonly md5Hex: string;
  /** Additional checksums (base64), by algorithm: those the client sent, verified, or the policy's. */
  readonly checksums: Checksums;
}

/** Which checksum a body gets besides the ones its client sends. */
export interface ChecksumPolicy {
  /** Computed when the client sends no checksum: S3's default, or a multipart upload's algorithm. */
  readonly fallback?: ChecksumAlgorithm;
  /** A multipart upload's algorithm: a part whose client sends another one is refused. */
  readonly required?: ChecksumAlgorithm;
  /** The x-amz-checksum-* headers state the object's checksum, not this body's (CompleteMultipartUpload). */
  readonly headersNameTheObject?: boolean;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(",") : v;
};

const entityTooLarge = (max: number) =>
  new S3Error(
    400,
    "EntityTooLarge",
    `Your proposed upload exceeds the maximum allowed size of ${max} bytes; use multipart upload.`,
  );

const incompleteBody = (declared: number, got: string) =>
  new S3Error(400, "IncompleteBody", `You did not provide the number of bytes specified (${declared}); got ${got}.`);

const badDigest = (what: string) =>
  new S3Error(400, "BadDigest", `The ${what} you specified did not match the calculated checksum; resend the object.`);

/** Checksums the client announced, with the value when it came as a header (else it is a trailer). */
function announcedChecksums(
  req: IncomingMessage,
  headersNameTheObject: boolean,
): Map<ChecksumAlgorithm, string | undefined> {
  const announced = new Map<ChecksumAlgorithm, string | undefined>();
  for (const [name, value] of headersNameTheObject ? [] : Object.entries(req.headers)) {
    const m = /^x-amz-checksum-(.+)$/.exec(name);
    if (!m || m[1] === "mode" || m[1] === "type" || m[1] === "algorithm") continue;
    if (!isChecksumAlgorithm(m[1]!)) {
      throw new S3Error(
        400,
        "InvalidRequest",
        `Checksum algorithm '${m[1]}' is not supported; use crc32, crc32c, crc64nvme, sha1 or sha256.`,
      );
    }
    announced.set(m[1], Array.isArray(value) ? value[0] : value);
  }
  for (const name of (header(req, "x-amz-trailer") ?? "").split(",")) {
    const m = /^x-amz-checksum-(.+)$/.exec(name.trim().toLowerCase());
    if (!m) continue;
    if (!isChecksumAlgorithm(m[1]!)) {
      throw new S3Error(
        400,
        "InvalidRequest",
        `Trailing checksum '${m[1]}' is not supported; use crc32, crc32c, crc64nvme, sha1 or sha256.`,
      );
    }
    if (!announced.has(m[1])) announced.set(m[1], undefined);
  }
  return announced;
}

function expectedMd5(req: IncomingMessage): string | undefined {
  const value = header(req, "content-md5");
  if (value === undefined) return undefined;
  const bytes = Buffer.from(value, "base64");
  if (bytes.length !== 16 || bytes.toString("base64") !== value.trim()) {
    throw new S3Error(400, "InvalidDigest", "The Content-MD5 you specified is not a base64 MD5 digest.");
  }
  return bytes.toString("hex");
}

const isChunked = (payload: PayloadProtection) =>
  payload.kind === "chunked-signed" || payload.kind === "chunked-unsigned";

/** The payload length the request announces (decoded length for aws-chunked), if it does. */
export function declaredLength(req: IncomingMessage, payload: PayloadProtection): number | undefined {
  const lengthHeader = isChunked(payload) ? header(req, "x-amz-decoded-content-length") : header(req, "content-length");
  const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
  if (declared !== undefined && !(Number.isInteger(declared) && declared >= 0)) {
    throw new S3Error(400, "InvalidArgument", "The content length header is not a non-negative integer.");
  }
  return declared;
}

/** Streams the body into `sink`; resolves only when every integrity check passed. */
export async function receiveBody(
  req: IncomingMessage,
  payload: PayloadProtection,
  sink: Writable,
  maxBytes: number,
  policy: ChecksumPolicy = {},
): Promise<ReceivedBody> {
  const chunked = isChunked(payload);
  const declared = declaredLength(req, payload);
  if (declared !== undefined && declared > maxBytes) throw entityTooLarge(maxBytes);
  const md5Expected = expectedMd5(req);
  const announced = announcedChecksums(req, policy.headersNameTheObject === true);
  const { required } = policy;
  if (required !== undefined && announced.size > 0 && !announced.has(required)) {
    throw new S3Error(
      400,
      "InvalidRequest",
      `Checksum Type mismatch occurred, expected checksum Type: ${required}, actual checksum Type: ${[...announced.keys()].join(", ")}; ` +
        "send the parts with the algorithm the multipart upload was created with.",
    );
  }
  const computedOnly = announced.size === 0 ? policy.fallback : undefined;

  const md5 = createHash("md5");
  const sha256 = payload.kind === "sha256" ? createHash("sha256") : undefined;
  const summers = new Map<ChecksumAlgorithm, Checksummer>(
    [...announced.keys(), ...(computedOnly ? [computedOnly] : [])].map((a) => [a, createChecksummer(a)]),
  );
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      size += chunk.length;
      if (size > maxBytes) return callback(entityTooLarge(maxBytes));
      // Refused as soon as it happens, so that a body held in memory stays within what was declared.
      if (declared !== undefined && size > declared) return callback(incompleteBody(declared, `more`));
      md5.update(chunk);
      sha256?.update(chunk);
      for (const summer of summers.values()) summer.update(chunk);
      callback(null, chunk);
    },
  });
  const decoder = chunked
    ? new AwsChunkedDecoder(payload.kind === "chunked-signed" ? payload.chain : undefined)
    : undefined;
  await (decoder ? pipeline(req, decoder, meter, sink) : pipeline(req, meter, sink));

  if (declared !== undefined && size !== declared) throw incompleteBody(declared, String(size));
  if (sha256 && payload.kind === "sha256" && sha256.digest("hex") !== payload.expectedHex) {
    throw new S3Error(
      400,
      "XAmzContentSHA256Mismatch",
      "The provided 'x-amz-content-sha256' header does not match what was computed; resend the body unchanged.",
    );
  }
  const md5Hex = md5.digest("hex");
  if (md5Expected !== undefined && md5Expected !== md5Hex) throw badDigest("Content-MD5");
  const trailers = new Map(decoder?.trailers ?? []);
  const checksums: Checksums = {};
  for (const [algorithm, summer] of summers) {
    const computed = summer.digest();
    if (algorithm === computedOnly) {
      checksums[algorithm] = computed;
      continue;
    }
    const claimed = announced.get(algorithm) ?? trailers.get(`x-amz-checksum-${algorithm}`);
    if (claimed === undefined) {
      throw new S3Error(
        400,
        "MalformedTrailerError",
        `The announced trailing checksum x-amz-checksum-${algorithm} is missing.`,
      );
    }
    if (claimed !== computed) throw badDigest(algorithm.toUpperCase());
    checksums[algorithm] = computed;
  }
  return { size, md5Hex, checksums };
}

/** Receives a small body into memory, with the same integrity checks. */
export async function receiveToMemory(
  req: IncomingMessage,
  payload: PayloadProtection,
  maxBytes: number,
  policy: ChecksumPolicy = {},
): Promise<{ bytes: Buffer; body: ReceivedBody }> {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      parts.push(chunk);
      callback();
    },
  });
  const body = await receiveBody(req, payload, sink, maxBytes, policy);
  return { bytes: Buffer.concat(parts), body };
}

/** Reads a small body (XML requests) into memory, with the same integrity checks. */
export async function readSmallBody(
  req: IncomingMessage,
  payload: PayloadProtection,
  maxBytes: number,
  policy: ChecksumPolicy = {},
): Promise<Buffer> {
  return (await receiveToMemory(req, payload, maxBytes, policy)).bytes;
}
