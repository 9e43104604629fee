/** Object attributes a client sets with headers on PutObject, CopyObject (REPLACE) and multipart create. */
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { isChecksumAlgorithm, type ChecksumAlgorithm, type Checksums, type ChecksumType } from "./checksums.js";
import { S3Error } from "./errors.js";
import type { ObjectAttributes } from "./object-store.js";

/** The representation headers S3 stores and returns unchanged. */
const STORED_HEADERS = [
  "cache-control",
  "content-disposition",
  "content-encoding",
  "content-language",
  "expires",
] as const;

export function attributesFromRequest(req: IncomingMessage): ObjectAttributes {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let value = req.headers[name];
    if (typeof value !== "string") continue;
    // aws-chunked describes the transfer, not the object (S3 drops it).
    if (name === "content-encoding")
      value = value
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "aws-chunked")
        .join(",");
    if (value !== "") headers[name] = value;
  }
  const userMetadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith("x-amz-meta-") && value !== undefined) {
      userMetadata[name.slice("x-amz-meta-".length)] = Array.isArray(value) ? value.join(",") : value;
    }
  }
  return {
    contentType: (req.headers["content-type"] as string | undefined) ?? "binary/octet-stream",
    headers,
    userMetadata,
  };
}

export function attributeHeaders(attributes: ObjectAttributes): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { "content-type": attributes.contentType, ...attributes.headers };
  for (const [name, value] of Object.entries(attributes.userMetadata)) out[`x-amz-meta-${name}`] = value;
  return out;
}

/** x-amz-checksum-<algorithm> for each checksum, and x-amz-checksum-type when there is one. */
export function checksumHeaders(object: {
  readonly checksums: Checksums;
  readonly checksumType?: ChecksumType;
}): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [algorithm, value] of Object.entries(object.checksums)) out[`x-amz-checksum-${algorithm}`] = value;
  if (Object.keys(out).length > 0) out["x-amz-checksum-type"] = object.checksumType ?? "FULL_OBJECT";
  return out;
}

/** The algorithm a request names in `header` (x-amz-checksum-algorithm: CRC32, …), if it names one. */
export function requestedChecksumAlgorithm(req: IncomingMessage, header: string): ChecksumAlgorithm | undefined {
  const value = req.headers[header];
  if (typeof value !== "string") return undefined;
  const algorithm = value.trim().toLowerCase();
  if (!isChecksumAlgorithm(algorithm)) {
    throw new S3Error(
      400,
      "InvalidRequest",
      `Checksum algorithm '${value}' is not supported; use CRC32, CRC32C, CRC64NVME, SHA1 or SHA256.`,
    );
  }
  return algorithm;
}
