/**
 * Multipart upload: create, upload part (and part copy), complete, abort, list parts, list uploads.
 * The completed object's ETag is the MD5 of the parts' binary MD5s, suffixed with "-<part count>".
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Transform } from "node:stream";
import { attributesFromRequest, checksumHeaders, requestedChecksumAlgorithm } from "./attributes.js";
import { readSmallBody } from "./body.js";
import { headerValue, type Operation, type S3Call } from "./call.js";
import {
  compositeChecksum,
  createChecksummer,
  DEFAULT_CHECKSUM,
  isChecksumAlgorithm,
  type ChecksumAlgorithm,
  type Checksums,
  type ChecksumType,
} from "./checksums.js";
import { invalidArgument, malformedXml, noSuchUpload, S3Error } from "./errors.js";
import { checksumElements, openCopySource, writeCondition } from "./object-operations.js";
import { sendXml } from "./respond.js";
import { commitOrDiscard, copyToTemp, receiveToTemp } from "./transfer.js";
import type { PartMeta, UploadRecord } from "./upload-store.js";
import { parseXmlBody, text, type XmlValue } from "./xml-input.js";
import type { XmlNode } from "./xml.js";

const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;

const invalidRequest = (message: string) => new S3Error(400, "InvalidRequest", message);

/**
 * The checksum a multipart upload's object gets, from x-amz-checksum-algorithm and -type as S3 takes
 * them: CRC64NVME only of the whole object, SHA-1 and SHA-256 only composite (of the parts'
 * checksums), CRC32 and CRC32C either way (composite unless told).
 */
function uploadChecksum(call: S3Call): { algorithm: ChecksumAlgorithm; type: ChecksumType } | undefined {
  const algorithm = requestedChecksumAlgorithm(call.req, "x-amz-checksum-algorithm");
  const typeHeader = headerValue(call.req, "x-amz-checksum-type")?.trim().toUpperCase();
  if (typeHeader !== undefined && typeHeader !== "COMPOSITE" && typeHeader !== "FULL_OBJECT") {
    throw invalidRequest(`Checksum type '${typeHeader}' is not supported; use COMPOSITE or FULL_OBJECT.`);
  }
  if (algorithm === undefined) {
    if (typeHeader !== undefined) throw invalidRequest("x-amz-checksum-type needs x-amz-checksum-algorithm.");
    return undefined;
  }
  const type: ChecksumType = typeHeader ?? (algorithm === "crc64nvme" ? "FULL_OBJECT" : "COMPOSITE");
  if ((type === "FULL_OBJECT" && algorithm.startsWith("sha")) || (type === "COMPOSITE" && algorithm === "crc64nvme")) {
    throw invalidRequest(`The ${type} checksum type cannot be used with the ${algorithm} checksum algorithm.`);
  }
  return { algorithm, type };
}

export const createMultipartUpload: Operation = async (call) => {
  const checksum = uploadChecksum(call);
  const record = await call.uploads.create(call.bucket, call.key, attributesFromRequest(call.req), checksum);
  if (checksum) {
    call.res.setHeader("x-amz-checksum-algorithm", checksum.algorithm.toUpperCase());
    call.res.setHeader("x-amz-checksum-type", checksum.type);
  }
  sendXml(call.res, 200, "InitiateMultipartUploadResult", [
    ["Bucket", call.bucket],
    ["Key", call.key],
    ["UploadId", record.uploadId],
  ]);
};

/** The upload named by ?uploadId, which must belong to the key in the path. */
async function upload(call: S3Call): Promise<UploadRecord> {
  const uploadId = call.target.query.get("uploadId") ?? "";
  const record = await call.uploads.get(call.bucket, uploadId);
  if (!record || record.key !== call.key) throw noSuchUpload(uploadId);
  return record;
}

function partNumber(call: S3Call): number {
  const value = call.target.query.get("partNumber") ?? "";
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_PARTS) {
    throw invalidArgument(`Part number must be an integer between 1 and ${MAX_PARTS}, inclusive.`);
  }
  return n;
}

export const uploadPart: Operation = async (call) => {
  const number = partNumber(call);
  const record = await upload(call);
  const algorithm = record.checksum?.algorithm;
  const { tempFile, body } = await receiveToTemp(call, { fallback: algorithm, required: algorithm });
  const part = await commitOrDiscard({ tempFile }, async () => {
    const committed = await call.uploads.commitPart(call.bucket, record.uploadId, tempFile, {
      partNumber: number,
      etag: `"${body.md5Hex}"`,
      size: body.size,
      checksums: body.checksums,
    });
    if (!committed) throw noSuchUpload(record.uploadId);
    return committed;
  });
  call.res.writeHead(200, { etag: part.etag, ...checksumHeaders(part), "content-length": 0 });
  call.res.end();
};

function copyRange(header: string | undefined, size: number): { start: number; end: number } {
  if (header === undefined) return { start: 0, end: size - 1 };
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  if (!m || Number(m[2]) < Number(m[1]) || Number(m[2]) >= size) {
    throw new S3Error(
      400,
      "InvalidArgument",
      `x-amz-copy-source-range must be bytes=first-last within the ${size}-byte source.`,
    );
  }
  return { start: Number(m[1]), end: Number(m[2]) };
}

export const uploadPartCopy: Operation = async (call) => {
  const number = partNumber(call);
  const record = await upload(call);
  const stored = await openCopySource(call);
  let copied: Awaited<ReturnType<typeof copyToTemp>>;
  try {
    const { start, end } = copyRange(headerValue(call.req, "x-amz-copy-source-range"), stored.meta.size);
    copied = await copyToTemp(call, stored, start, end, record.checksum?.algorithm);
  } finally {
    await stored.file?.close();
  }
  const part = await commitOrDiscard({ tempFile: copied.tempFile }, async () => {
    const committed = await call.uploads.commitPart(call.bucket, record.uploadId, copied.tempFile, {
      partNumber: number,
      etag: `"${copied.md5Hex}"`,
      size: copied.size,
      checksums: copied.checksums,
    });
    if (!committed) throw noSuchUpload(record.uploadId);
    return committed;
  });
  sendXml(call.res, 200, "CopyPartResult", [
    ["LastModified", part.lastModified],
    ["ETag", part.etag],
    ...Object.entries(part.checksums).map(([a, v]): XmlNode => [`Checksum${a.toUpperCase()}`, v]),
  ]);
};

const unquote = (etag: string) => etag.trim().replace(/^"|"$/g, "");

interface RequestedPart {
  readonly partNumber: number;
  readonly etag: string;
  /** The part checksums the request lists (<ChecksumCRC32>, …). */
  readonly checksums: Checksums;
}

/** The parts the client lists in CompleteMultipartUpload, in order. */
function requestedParts(body: Buffer): RequestedPart[] {
  const doc = parseXmlBody(body, "CompleteMultipartUpload");
  const parts = (doc["Part"] ?? []) as XmlValue[];
  if (parts.length === 0) throw malformedXml("<CompleteMultipartUpload> must list at least one <Part>");
  return parts.map((p) => {
    const fields = typeof p === "object" && !Array.isArray(p) ? p : {};
    const number = Number(text(fields["PartNumber"])?.trim());
    const etag = text(fields["ETag"]);
    if (!Number.isInteger(number) || etag === undefined)
      throw malformedXml("every <Part> needs <PartNumber> and <ETag>");
    const checksums: Checksums = {};
    for (const [name, value] of Object.entries(fields)) {
      const algorithm = name.startsWith("Checksum") ? name.slice("Checksum".length).toLowerCase() : "";
      if (isChecksumAlgorithm(algorithm)) checksums[algorithm] = text(value)?.trim();
    }
    return { partNumber: number, etag: unquote(etag), checksums };
  });
}

/** The stored parts the request names, checked as S3 does: order, ETags, checksums, sizes. */
function chooseParts(
  record: UploadRecord,
  requested: readonly RequestedPart[],
  stored: Map<number, PartMeta>,
): PartMeta[] {
  if (requested.some((r, i) => i > 0 && r.partNumber <= requested[i - 1]!.partNumber)) {
    throw new S3Error(
      400,
      "InvalidPartOrder",
      "The list of parts was not in ascending order; sort them by part number.",
    );
  }
  const algorithm = record.checksum?.algorithm;
  return requested.map((r, i) => {
    const part = stored.get(r.partNumber);
    const listed = algorithm === undefined ? undefined : r.checksums[algorithm];
    if (!part || unquote(part.etag) !== r.etag || (listed !== undefined && listed !== part.checksums[algorithm!])) {
      throw new S3Error(
        400,
        "InvalidPart",
        `Part ${r.partNumber} was not uploaded or its ETag or checksum does not match; upload it again.`,
      );
    }
    if (listed === undefined && record.checksum?.type === "COMPOSITE") {
      throw invalidRequest(
        `The upload was created using a ${algorithm} checksum. The complete request must include the checksum for ` +
          `each part. It was missing for part ${r.partNumber} in the request.`,
      );
    }
    if (i < requested.length - 1 && part.size < MIN_PART_BYTES) {
      throw new S3Error(
        400,
        "EntityTooSmall",
        `Part ${r.partNumber} is smaller than 5 MiB; only the last part may be smaller.`,
      );
    }
    return part;
  });
}

/**
 * The object's checksum: composite, of the parts' checksums; else of all its bytes (`whole`, the
 * upload's algorithm or S3's default), which the request may state in x-amz-checksum-<algorithm>.
 */
function objectChecksum(
  call: S3Call,
  record: UploadRecord,
  chosen: readonly PartMeta[],
  whole: { readonly algorithm: ChecksumAlgorithm; readonly value: string } | undefined,
): { checksums: Checksums; checksumType: ChecksumType } {
  if (record.checksum?.type === "COMPOSITE") {
    const { algorithm } = record.checksum;
    const value = compositeChecksum(
      algorithm,
      chosen.map((p) => p.checksums[algorithm]!),
    );
    return { checksums: { [algorithm]: value }, checksumType: "COMPOSITE" };
  }
  const { algorithm, value } = whole!;
  const stated = headerValue(call.req, `x-amz-checksum-${algorithm}`);
  if (stated !== undefined && stated !== value) {
    throw new S3Error(
      400,
      "BadDigest",
      `The ${algorithm.toUpperCase()} you specified for the object did not match the calculated checksum.`,
    );
  }
  return { checksums: { [algorithm]: value }, checksumType: "FULL_OBJECT" };
}

export const completeMultipartUpload: Operation = async (call) => {
  const record = await upload(call);
  const condition = writeCondition(call);
  // Here x-amz-checksum-<algorithm> states the whole object's checksum, not the XML body's.
  const body = await readSmallBody(call.req, call.auth.payload, 4 * 1024 * 1024, { headersNameTheObject: true });
  const requested = requestedParts(body);
  condition?.(await call.store.head(call.bucket, call.key));
  const meta = await call.uploads.withUploadLock(call.bucket, record.uploadId, async () => {
    if (!(await call.uploads.get(call.bucket, record.uploadId))) throw noSuchUpload(record.uploadId);
    const stored = new Map((await call.uploads.parts(call.bucket, record.uploadId)).map((p) => [p.partNumber, p]));
    const chosen = chooseParts(record, requested, stored);
    const wholeAlgorithm =
      record.checksum === undefined
        ? DEFAULT_CHECKSUM
        : record.checksum.type === "FULL_OBJECT"
          ? record.checksum.algorithm
          : undefined;
    const summer = wholeAlgorithm === undefined ? undefined : createChecksummer(wholeAlgorithm);
    const tempFile = call.store.tempPath();
    const combined = createHash("md5");
    const committed = await commitOrDiscard({ tempFile }, async () => {
      const out = createWriteStream(tempFile);
      for (const part of chosen) {
        combined.update(Buffer.from(unquote(part.etag), "hex"));
        const read = createReadStream(call.uploads.partPath(call.bucket, record.uploadId, part));
        if (summer) await pipeline(read, checksumTap(summer), out, { end: false });
        else await pipeline(read, out, { end: false });
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      const whole = summer && wholeAlgorithm ? { algorithm: wholeAlgorithm, value: summer.digest() } : undefined;
      return call.store.commit(
        call.bucket,
        call.key,
        { tempFile },
        {
          ...record.attributes,
          etag: `"${combined.digest("hex")}-${chosen.length}"`,
          size: chosen.reduce((sum, p) => sum + p.size, 0),
          ...objectChecksum(call, record, chosen, whole),
          partsCount: chosen.length,
        },
        condition,
      );
    });
    await call.uploads.remove(call.bucket, record.uploadId);
    return committed;
  });
  sendXml(call.res, 200, "CompleteMultipartUploadResult", [
    ["Location", `/${call.bucket}/${encodeURIComponent(call.key).replace(/%2F/g, "/")}`],
    ["Bucket", call.bucket],
    ["Key", call.key],
    ["ETag", meta.etag],
    ...checksumElements(meta),
  ]);
};

/** Passes bytes through unchanged, feeding them to `summer`. */
function checksumTap(summer: { update(data: Buffer): void }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      summer.update(chunk);
      callback(null, chunk);
    },
  });
}

export const abortMultipartUpload: Operation = async (call) => {
  const record = await upload(call);
  await call.uploads.withUploadLock(call.bucket, record.uploadId, () =>
    call.uploads.remove(call.bucket, record.uploadId),
  );
  call.res.writeHead(204);
  call.res.end();
};

function boundedInteger(call: S3Call, name: string, fallback: number, max: number): number {
  const value = call.target.query.get(name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw invalidArgument(`${name} must be a non-negative integer.`);
  return Math.min(Number(value), max);
}

export const listParts: Operation = async (call) => {
  const record = await upload(call);
  const marker = boundedInteger(call, "part-number-marker", 0, MAX_PARTS);
  const max = boundedInteger(call, "max-parts", 1000, 1000);
  const after = (await call.uploads.parts(call.bucket, record.uploadId)).filter((p) => p.partNumber > marker);
  const page = after.slice(0, max);
  const truncated = after.length > page.length;
  sendXml(call.res, 200, "ListPartsResult", [
    ["Bucket", call.bucket],
    ["Key", call.key],
    ["UploadId", record.uploadId],
    ["PartNumberMarker", marker],
    truncated ? ["NextPartNumberMarker", page[page.length - 1]!.partNumber] : undefined,
    ["MaxParts", max],
    ["IsTruncated", truncated],
    ["StorageClass", "STANDARD"],
    ...page.map((p): XmlNode => [
      "Part",
      [
        ["PartNumber", p.partNumber],
        ["LastModified", p.lastModified],
        ["ETag", p.etag],
        ["Size", p.size],
        ...Object.entries(p.checksums).map(([a, v]): XmlNode => [`Checksum${a.toUpperCase()}`, v]),
      ],
    ]),
  ]);
};

export const listMultipartUploads: Operation = async (call) => {
  const prefix = call.target.query.get("prefix") ?? "";
  const keyMarker = call.target.query.get("key-marker") ?? "";
  const max = boundedInteger(call, "max-uploads", 1000, 1000);
  const all = (await call.uploads.list(call.bucket)).filter((u) => u.key.startsWith(prefix) && u.key > keyMarker);
  const page = all.slice(0, max);
  const truncated = all.length > page.length;
  const last = page[page.length - 1];
  sendXml(call.res, 200, "ListMultipartUploadsResult", [
    ["Bucket", call.bucket],
    ["KeyMarker", keyMarker],
    ["UploadIdMarker", ""],
    truncated && last ? ["NextKeyMarker", last.key] : undefined,
    truncated && last ? ["NextUploadIdMarker", last.uploadId] : undefined,
    ["Prefix", prefix],
    ["MaxUploads", max],
    ["IsTruncated", truncated],
    ...page.map((u): XmlNode => [
      "Upload",
      [
        ["Key", u.key],
        ["UploadId", u.uploadId],
        ["Initiated", u.initiated],
        ["StorageClass", "STANDARD"],
      ],
    ]),
  ]);
};
