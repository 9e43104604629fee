/** Bucket-level operations: HeadBucket, GetBucketLocation, ListObjects v1/v2, and the harmless ones clients probe. */
import type { Operation, S3Call } from "./call.js";
import { invalidArgument } from "./errors.js";
import { listPage, type ListPage } from "./list-page.js";
import type { ObjectMeta } from "./object-store.js";
import { sendXml } from "./respond.js";
import { REGION } from "./sigv4.js";
import type { XmlNode } from "./xml.js";

export const OWNER_ID = "cloudplatform-emulator";

export const headBucket: Operation = async (call) => {
  call.res.writeHead(200, { "x-amz-bucket-region": REGION });
  call.res.end();
};

/** AWS answers an empty LocationConstraint for us-east-1; clients map it back to us-east-1. */
export const getBucketLocation: Operation = async (call) => {
  sendXml(call.res, 200, "LocationConstraint", []);
};

export const getBucketVersioning: Operation = async (call) => {
  sendXml(call.res, 200, "VersioningConfiguration", []);
};

/** Re-creating one's own bucket succeeds in us-east-1 (rclone and s3cmd may try). */
export const createOwnBucket: Operation = async (call) => {
  call.res.writeHead(200, { location: `/${call.bucket}`, "content-length": 0 });
  call.res.end();
};

function maxKeys(call: S3Call, name: string): number {
  const value = call.target.query.get(name);
  if (value === undefined) return 1000;
  if (!/^\d+$/.test(value)) throw invalidArgument(`${name} must be a non-negative integer.`);
  return Math.min(Number(value), 1000);
}

/** With encoding-type=url, names are percent-encoded so any byte survives XML. */
function encoder(call: S3Call): (name: string) => string {
  return call.target.query.get("encoding-type") === "url"
    ? (name) => encodeURIComponent(name).replace(/%2F/g, "/")
    : (name) => name;
}

async function entries(call: S3Call, page: ListPage, encode: (n: string) => string): Promise<XmlNode[]> {
  const nodes: XmlNode[] = [];
  for (const key of page.keys) {
    const meta = await call.store.head(call.bucket, key);
    if (meta) nodes.push(["Contents", contentsNode(meta, encode)]);
  }
  for (const prefix of page.commonPrefixes) nodes.push(["CommonPrefixes", [["Prefix", encode(prefix)]]]);
  return nodes;
}

function contentsNode(meta: ObjectMeta, encode: (n: string) => string): XmlNode[] {
  return [
    ["Key", encode(meta.key)],
    ["LastModified", meta.lastModified],
    ["ETag", meta.etag],
    ["Size", meta.size],
    ["StorageClass", "STANDARD"],
    ...Object.keys(meta.checksums).map((a): XmlNode => ["ChecksumAlgorithm", a.toUpperCase()]),
    Object.keys(meta.checksums).length > 0 ? ["ChecksumType", meta.checksumType ?? "FULL_OBJECT"] : undefined,
  ];
}

const tokenOf = (last: string) => Buffer.from(last, "utf8").toString("base64url");

function fromToken(token: string): string {
  const decoded = Buffer.from(token, "base64url").toString("utf8");
  if (token === "" || tokenOf(decoded) !== token) {
    throw invalidArgument("The continuation token provided is incorrect; pass NextContinuationToken unchanged.");
  }
  return decoded;
}

export const listObjectsV2: Operation = async (call) => {
  const q = call.target.query;
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") ?? "";
  const token = q.get("continuation-token");
  const startAfter = q.get("start-after");
  const max = maxKeys(call, "max-keys");
  const page = listPage(await call.store.sortedKeys(call.bucket), {
    prefix,
    delimiter,
    after: token !== undefined ? fromToken(token) : (startAfter ?? ""),
    maxKeys: max,
  });
  const encode = encoder(call);
  const encodingType = q.get("encoding-type");
  sendXml(call.res, 200, "ListBucketResult", [
    ["Name", call.bucket],
    ["Prefix", encode(prefix)],
    delimiter !== "" ? ["Delimiter", encode(delimiter)] : undefined,
    ["MaxKeys", max],
    ["KeyCount", page.keys.length + page.commonPrefixes.length],
    ["IsTruncated", page.isTruncated],
    token !== undefined ? ["ContinuationToken", token] : undefined,
    page.isTruncated && page.last !== undefined ? ["NextContinuationToken", tokenOf(page.last)] : undefined,
    startAfter !== undefined ? ["StartAfter", encode(startAfter)] : undefined,
    encodingType !== undefined ? ["EncodingType", encodingType] : undefined,
    ...(await entries(call, page, encode)),
  ]);
};

export const listObjectsV1: Operation = async (call) => {
  const q = call.target.query;
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") ?? "";
  const marker = q.get("marker") ?? "";
  const max = maxKeys(call, "max-keys");
  const page = listPage(await call.store.sortedKeys(call.bucket), { prefix, delimiter, after: marker, maxKeys: max });
  const encode = encoder(call);
  const encodingType = q.get("encoding-type");
  sendXml(call.res, 200, "ListBucketResult", [
    ["Name", call.bucket],
    ["Prefix", encode(prefix)],
    ["Marker", encode(marker)],
    page.isTruncated && page.last !== undefined ? ["NextMarker", encode(page.last)] : undefined,
    ["MaxKeys", max],
    delimiter !== "" ? ["Delimiter", encode(delimiter)] : undefined,
    ["IsTruncated", page.isTruncated],
    encodingType !== undefined ? ["EncodingType", encodingType] : undefined,
    ...(await entries(call, page, encode)),
  ]);
};
