/** Object attributes a client sets with headers on PutObject, CopyObject (REPLACE) and multipart create. */
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import type { Checksums } from "./checksums.js";
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

export function checksumHeaders(checksums: Checksums): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [algorithm, value] of Object.entries(checksums)) out[`x-amz-checksum-${algorithm}`] = value;
  return out;
}
