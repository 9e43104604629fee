/** Single-object operations: PutObject, GetObject, HeadObject, DeleteObject, CopyObject, DeleteObjects. */
import { createHash } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import { attributeHeaders, attributesFromRequest, checksumHeaders } from "./attributes.js";
import { readSmallBody } from "./body.js";
import { headerValue, type Operation, type S3Call } from "./call.js";
import { accessDenied, malformedXml, noSuchKey, S3Error } from "./errors.js";
import type { NewBytes, ObjectMeta, StoredObject } from "./object-store.js";
import { httpDate, sendXml } from "./respond.js";
import { commitOrDiscard, copyToTemp, receiveObject, sendFileRange } from "./transfer.js";
import { parseXmlBody, text, type XmlValue } from "./xml-input.js";
import type { XmlNode } from "./xml.js";

export const putObject: Operation = async (call) => {
  const { source, body } = await receiveObject(call);
  const meta = await commitOrDiscard(source, () =>
    call.store.commit(call.bucket, call.key, source, {
      ...attributesFromRequest(call.req),
      etag: `"${body.md5Hex}"`,
      size: body.size,
      checksums: body.checksums,
    }),
  );
  call.res.writeHead(200, { etag: meta.etag, ...checksumHeaders(meta.checksums), "content-length": 0 });
  call.res.end();
};

const stripQuotes = (etag: string) => etag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");

function etagMatches(list: string, etag: string): boolean {
  return list.split(",").some((candidate) => candidate.trim() === "*" || stripQuotes(candidate) === stripQuotes(etag));
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
    Object.assign(headers, checksumHeaders(meta.checksums));
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

export const deleteObject: Operation = async (call) => {
  await call.store.delete(call.bucket, call.key);
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
  const stored = await openCopySource(call);
  const source = stored.meta;
  let copied: { source: NewBytes; md5Hex: string; size: number };
  try {
    if (source.key === call.key && !replace) {
      throw new S3Error(
        400,
        "InvalidRequest",
        "This copy request is illegal because it is trying to copy an object to itself without changing its metadata; use x-amz-metadata-directive: REPLACE.",
      );
    }
    if (stored.bytes) {
      copied = {
        source: { bytes: stored.bytes },
        md5Hex: createHash("md5").update(stored.bytes).digest("hex"),
        size: stored.bytes.length,
      };
    } else {
      const { tempFile, md5Hex, size } = await copyToTemp(call, stored, 0, Math.max(0, source.size - 1));
      copied = { source: { tempFile }, md5Hex, size };
    }
  } finally {
    await stored.file?.close();
  }
  const attributes = replace
    ? attributesFromRequest(call.req)
    : { contentType: source.contentType, headers: source.headers, userMetadata: source.userMetadata };
  const meta = await commitOrDiscard(copied.source, () =>
    call.store.commit(call.bucket, call.key, copied.source, {
      ...attributes,
      etag: `"${copied.md5Hex}"`,
      size: copied.size,
      // Same bytes, same full-object checksums; a multipart source only had per-part ones.
      checksums: source.partsCount === undefined ? source.checksums : {},
    }),
  );
  sendXml(call.res, 200, "CopyObjectResult", [
    ["LastModified", meta.lastModified],
    ["ETag", meta.etag],
  ]);
};

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
