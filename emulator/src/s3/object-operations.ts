/** Single-object operations: PutObject, GetObject, HeadObject, DeleteObject, CopyObject, DeleteObjects. */
import { createHash } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import { attributeHeaders, attributesFromRequest, checksumHeaders, requestedChecksumAlgorithm } from "./attributes.js";
import { readSmallBody } from "./body.js";
import { headerValue, type Operation, type S3Call } from "./call.js";
import { createChecksummer, DEFAULT_CHECKSUM, type Checksums } from "./checksums.js";
import { accessDenied, malformedXml, noSuchKey, S3Error } from "./errors.js";
import type { NewBytes, ObjectMeta, StoredObject, WriteCondition } from "./object-store.js";
import { httpDate, sendXml } from "./respond.js";
import { commitOrDiscard, copyToTemp, receiveObject, sendFileRange } from "./transfer.js";
import { parseXmlBody, text, type XmlValue } from "./xml-input.js";
import type { XmlNode } from "./xml.js";

export const putObject: Operation = async (call) => {
  const condition = writeCondition(call);
  const { source, body } = await receiveObject(call, { fallback: DEFAULT_CHECKSUM });
  const meta = await commitOrDiscard(source, () =>
    call.store.commit(
      call.bucket,
      call.key,
      source,
      {
        ...attributesFromRequest(call.req),
        etag: `"${body.md5Hex}"`,
        size: body.size,
        checksums: body.checksums,
        checksumType: "FULL_OBJECT",
      },
      condition,
    ),
  );
  call.res.writeHead(200, { etag: meta.etag, ...checksumHeaders(meta), "content-length": 0 });
  call.res.end();
};

/**
 * Refuses a conditional PutObject before its body is read (and before a client that waits on
 * "Expect: 100-continue" sends it) when the object already says no. The answer that counts is the
 * one the commit gives under the bucket's lock: another write may land meanwhile.
 */
export const putObjectPreflight: Operation = async (call) => {
  const condition = writeCondition(call);
  condition?.(await call.store.head(call.bucket, call.key));
};

const stripQuotes = (etag: string) => etag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");

function etagMatches(list: string, etag: string): boolean {
  return list.split(",").some((candidate) => candidate.trim() === "*" || stripQuotes(candidate) === stripQuotes(etag));
}

const preconditionFailed = (condition: string) =>
  new S3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", {
    Condition: condition,
  });

/**
 * S3's conditional writes (PutObject, CompleteMultipartUpload): `If-None-Match: *` writes only when
 * the key holds no object (what lock files need), `If-Match: <etag>` only over that very object
 * (404 NoSuchKey when there is none). Undefined when the request sets neither.
 */
export function writeCondition(call: S3Call): WriteCondition | undefined {
  const ifNoneMatch = headerValue(call.req, "if-none-match");
  const ifMatch = headerValue(call.req, "if-match");
  if (ifNoneMatch === undefined && ifMatch === undefined) return undefined;
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== "*") {
    throw new S3Error(
      501,
      "NotImplemented",
      "A header you provided implies functionality that is not implemented: on a write, If-None-Match takes only '*'.",
    );
  }
  return (current) => {
    if (ifNoneMatch !== undefined && current !== undefined) throw preconditionFailed("If-None-Match");
    if (ifMatch !== undefined) {
      if (current === undefined) throw noSuchKey(call.key);
      if (!etagMatches(ifMatch, current.etag)) throw preconditionFailed("If-Match");
    }
  };
}

const seconds = (date: string | Date) => Math.floor(new Date(date).getTime() / 1000);

/** 304 / 412 per S3's conditional-request rules, or undefined to go on. */
function preconditionStatus(call: S3Call, meta: ObjectMeta): 304 | 412 | undefined {
  const ifMatch = headerValue(call.req, "if-match");
  const ifNoneMatch = headerValue(call.req, "if-none-match");
  const ifModifiedSince = headerValue(call.req, "if-modified-since");
  const ifUnmodifiedSince = headerValue(call.req, "if-unmodified-since");
  const modified = seconds(meta.lastModified);
  if (ifMatch !== undefined) {
    if (!etagMatches(ifMatch, meta.etag)) return 412;
  } else if (ifUnmodifiedSince !== undefined && !Number.isNaN(Date.parse(ifUnmodifiedSince))) {
    if (modified > seconds(ifUnmodifiedSince)) return 412;
  }
  if (ifNoneMatch !== undefined) {
    if (etagMatches(ifNoneMatch, meta.etag)) return 304;
  } else if (ifModifiedSince !== undefined && !Number.isNaN(Date.parse(ifModifiedSince))) {
    if (modified <= seconds(ifModifiedSince)) return 304;
  }
  return undefined;
}

/** The single byte range asked for, clamped; undefined for the whole object. */
function requestedRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // S3 ignores range forms it does not support (several ranges) and sends the whole object.
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) throw invalidRange(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== "" && Number(m[2]) < start) return undefined;
  }
  if (start >= size) throw invalidRange(size);
  return { start, end };
}

const invalidRange = (size: number) =>
  new S3Error(416, "InvalidRange", `The requested range is not satisfiable: the object has ${size} bytes.`, {
    ActualObjectSize: String(size),
  });

const RESPONSE_OVERRIDES = [
  ["response-content-type", "content-type"],
  ["response-content-language", "content-language"],
  ["response-expires", "expires"],
  ["response-cache-control", "cache-control"],
  ["response-content-disposition", "content-disposition"],
  ["response-content-encoding", "content-encoding"],
] as const;

function objectHeaders(call: S3Call, meta: ObjectMeta, fullObject: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ...attributeHeaders(meta),
    etag: meta.etag,
    "last-modified": httpDate(meta.lastModified),
    "accept-ranges": "bytes",
  };
  if (meta.partsCount !== undefined) headers["x-amz-mp-parts-count"] = meta.partsCount;
  if (fullObject && headerValue(call.req, "x-amz-checksum-mode")?.toUpperCase() === "ENABLED") {
    Object.assign(headers, checksumHeaders(meta));
  }
  for (const [param, header] of RESPONSE_OVERRIDES) {
    const value = call.target.query.get(param);
    if (value !== undefined) headers[header] = value;
  }
  return headers;
}

async function serveObject(call: S3Call, head: boolean): Promise<void> {
  const opened = await call.store.open(call.bucket, call.key);
  if (!opened) throw noSuchKey(call.key);
  const { meta } = opened;
  try {
    const precondition = preconditionStatus(call, meta);
    if (precondition === 412)
      throw new S3Error(412, "PreconditionFailed", "At least one of the preconditions you specified did not hold.");
    if (precondition === 304) {
      call.res.writeHead(304, { etag: meta.etag, "last-modified": httpDate(meta.lastModified) });
      call.res.end();
      return;
    }
    const range = requestedRange(headerValue(call.req, "range"), meta.size);
    const headers = objectHeaders(call, meta, range === undefined);
    const start = range?.start ?? 0;
    const end = range?.end ?? meta.size - 1;
    headers["content-length"] = meta.size === 0 ? 0 : end - start + 1;
    if (range) headers["content-range"] = `bytes ${start}-${end}/${meta.size}`;
    call.res.writeHead(range ? 206 : 200, headers);
    if (head || meta.size === 0) {
      call.res.end();
      return;
    }
    if (opened.bytes) {
      call.res.end(opened.bytes.subarray(start, end + 1));
      return;
    }
    await sendFileRange(opened.file, start, end, call.res).catch((err: unknown) => {
      // A client that hangs up mid-download is normal; anything else is worth a log line upstream.
      if ((err as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
    });
  } finally {
    await opened.file?.close();
  }
}

export const getObject: Operation = (call) => serveObject(call, false);
export const headObject: Operation = (call) => serveObject(call, true);

/** With `If-Match`, deletes only that very object; a key already gone is still a success (S3). */
export const deleteObject: Operation = async (call) => {
  const ifMatch = headerValue(call.req, "if-match");
  await call.store.delete(
    call.bucket,
    call.key,
    ifMatch === undefined
      ? undefined
      : (current) => {
          if (current !== undefined && !etagMatches(ifMatch, current.etag)) throw preconditionFailed("If-Match");
        },
  );
  call.res.writeHead(204);
  call.res.end();
};

/** Bucket and key named by x-amz-copy-source ("/bucket/key" or "bucket/key", URL-encoded). */
function parseCopySource(value: string): { bucket: string; key: string } {
  const raw = value.split("?versionId=")[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new S3Error(400, "InvalidArgument", "x-amz-copy-source must be URL-encoded as bucket/key.");
  }
  const path = decoded.startsWith("/") ? decoded.slice(1) : decoded;
  const slash = path.indexOf("/");
  if (slash <= 0 || slash === path.length - 1) {
    throw new S3Error(400, "InvalidArgument", "x-amz-copy-source must name a bucket and a key: bucket/key.");
  }
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
}

/** Opens the copy source after checking the credential reaches its bucket. */
export async function openCopySource(call: S3Call): Promise<StoredObject> {
  const source = parseCopySource(headerValue(call.req, "x-amz-copy-source")!);
  if (source.bucket !== call.auth.bucketName) throw accessDenied();
  const opened = await call.store.open(source.bucket, source.key);
  if (!opened) throw noSuchKey(source.key);
  const ifMatch = headerValue(call.req, "x-amz-copy-source-if-match");
  const ifNoneMatch = headerValue(call.req, "x-amz-copy-source-if-none-match");
  if (
    (ifMatch !== undefined && !etagMatches(ifMatch, opened.meta.etag)) ||
    (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, opened.meta.etag))
  ) {
    await opened.file?.close();
    throw new S3Error(412, "PreconditionFailed", "The copy source precondition did not hold.");
  }
  return opened;
}

export const copyObject: Operation = async (call) => {
  const replace = headerValue(call.req, "x-amz-metadata-directive")?.toUpperCase() === "REPLACE";
  const requested = requestedChecksumAlgorithm(call.req, "x-amz-checksum-algorithm");
  const stored = await openCopySource(call);
  const source = stored.meta;
  // The copy keeps the source's checksum of all its bytes; it gets one computed when the request
  // asks for an algorithm, or when the source had none (S3's default) or only a composite one.
  const kept =
    requested === undefined && source.checksumType !== "COMPOSITE" && Object.keys(source.checksums).length > 0;
  const algorithm = kept ? undefined : (requested ?? DEFAULT_CHECKSUM);
  let copied: { source: NewBytes; md5Hex: string; size: number; checksums: Checksums };
  try {
    if (source.key === call.key && !replace) {
      throw new S3Error(
        400,
        "InvalidRequest",
        "This copy request is illegal because it is trying to copy an object to itself without changing its metadata; use x-amz-metadata-directive: REPLACE.",
      );
    }
    if (stored.bytes) {
      const summer = algorithm === undefined ? undefined : createChecksummer(algorithm);
      summer?.update(stored.bytes);
      copied = {
        source: { bytes: stored.bytes },
        md5Hex: createHash("md5").update(stored.bytes).digest("hex"),
        size: stored.bytes.length,
        checksums: summer === undefined ? {} : { [algorithm!]: summer.digest() },
      };
    } else {
      const { tempFile, ...rest } = await copyToTemp(call, stored, 0, Math.max(0, source.size - 1), algorithm);
      copied = { source: { tempFile }, ...rest };
    }
  } finally {
    await stored.file?.close();
  }
  const attributes = replace
    ? attributesFromRequest(call.req)
    : { contentType: source.contentType, headers: source.headers, userMetadata: source.userMetadata };
  const checksums = kept ? source.checksums : copied.checksums;
  const meta = await commitOrDiscard(copied.source, () =>
    call.store.commit(call.bucket, call.key, copied.source, {
      ...attributes,
      etag: `"${copied.md5Hex}"`,
      size: copied.size,
      checksums,
      checksumType: "FULL_OBJECT",
    }),
  );
  sendXml(call.res, 200, "CopyObjectResult", [
    ["LastModified", meta.lastModified],
    ["ETag", meta.etag],
    ...checksumElements(meta),
  ]);
};

/** The ChecksumCRC32 (…) and ChecksumType elements S3 adds to a write's XML answer. */
export function checksumElements(object: { readonly checksums: Checksums; readonly checksumType?: string }): XmlNode[] {
  const elements = Object.entries(object.checksums).map(([a, v]): XmlNode => [`Checksum${a.toUpperCase()}`, v]);
  return elements.length > 0 ? [...elements, ["ChecksumType", object.checksumType ?? "FULL_OBJECT"]] : [];
}

const MAX_DELETE_KEYS = 1000;

export const deleteObjects: Operation = async (call) => {
  const hasDigest =
    headerValue(call.req, "content-md5") !== undefined ||
    Object.keys(call.req.headers).some((h) => /^x-amz-checksum-(crc|sha)/.test(h)) ||
    headerValue(call.req, "x-amz-trailer") !== undefined;
  if (!hasDigest) {
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: Content-MD5 (or an x-amz-checksum-* header).",
    );
  }
  const body = await readSmallBody(call.req, call.auth.payload, 2 * 1024 * 1024);
  const doc = parseXmlBody(body, "Delete");
  const quiet = text(doc["Quiet"])?.trim().toLowerCase() === "true";
  const objects = (doc["Object"] ?? []) as XmlValue[];
  if (objects.length === 0) throw malformedXml("<Delete> must list at least one <Object>");
  if (objects.length > MAX_DELETE_KEYS) throw malformedXml(`<Delete> may list at most ${MAX_DELETE_KEYS} objects`);
  const results: XmlNode[] = [];
  for (const object of objects) {
    const key = typeof object === "object" && !Array.isArray(object) ? text(object["Key"]) : undefined;
    if (key === undefined || key === "") throw malformedXml("every <Object> needs a <Key>");
    await call.store.delete(call.bucket, key);
    if (!quiet) results.push(["Deleted", [["Key", key]]]);
  }
  sendXml(call.res, 200, "DeleteResult", results);
};
