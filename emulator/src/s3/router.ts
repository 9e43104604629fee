/**
 * Maps a path-style request to its S3 operation and the route template counted in the stats.
 * Subresources S3 has but the platform does not offer are refused with NotImplemented, so a client
 * never mistakes them for a listing or an object read.
 */
import type { IncomingMessage } from "node:http";
import {
  createOwnBucket,
  getBucketLocation,
  getBucketVersioning,
  headBucket,
  listObjectsV1,
  listObjectsV2,
} from "./bucket-operations.js";
import type { Operation } from "./call.js";
import { accessDenied, S3Error } from "./errors.js";
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listParts,
  uploadPart,
  uploadPartCopy,
} from "./multipart-operations.js";
import {
  copyObject,
  deleteObject,
  deleteObjects,
  getObject,
  headObject,
  putObject,
  putObjectPreflight,
} from "./object-operations.js";
import type { RequestTarget } from "./target.js";

export interface Route {
  /** e.g. "PUT /{bucket}/{key}?partNumber&uploadId" */
  readonly template: string;
  readonly write: boolean;
  readonly operation: Operation;
  /** Checks that may refuse the request before a client waiting on "Expect: 100-continue" sends its body. */
  readonly preflight?: Operation;
}

const UNSUPPORTED = [
  "accelerate",
  "acl",
  "analytics",
  "attributes",
  "cors",
  "encryption",
  "intelligent-tiering",
  "inventory",
  "legal-hold",
  "lifecycle",
  "logging",
  "metrics",
  "notification",
  "object-lock",
  "ownershipControls",
  "policy",
  "policyStatus",
  "publicAccessBlock",
  "replication",
  "requestPayment",
  "restore",
  "retention",
  "select",
  "tagging",
  "torrent",
  "versionId",
  "versions",
  "website",
];

const notImplemented = (what: string) =>
  new S3Error(501, "NotImplemented", `The platform's S3 endpoint does not implement ${what}.`);

const methodNotAllowed = (method: string) =>
  new S3Error(405, "MethodNotAllowed", `The method ${method} is not allowed against this resource.`);

const deleteBucketRefused: Operation = async () => {
  throw accessDenied("Buckets are deleted with the management API (DELETE /object-storage/buckets/{id}), not over S3.");
};

function route(method: string, template: string, operation: Operation): Route {
  return { template: `${method} ${template}`, write: method !== "GET" && method !== "HEAD", operation };
}

export function resolveRoute(target: RequestTarget, req: IncomingMessage): Route {
  const q = target.query;
  const method = target.method;
  const unsupported = UNSUPPORTED.find((name) => q.has(name));
  if (unsupported) throw notImplemented(`the '${unsupported}' subresource`);
  if (target.key === undefined) {
    const b = "/{bucket}";
    switch (method) {
      case "HEAD":
        return route(method, b, headBucket);
      case "GET":
        if (q.has("location")) return route(method, `${b}?location`, getBucketLocation);
        if (q.has("versioning")) return route(method, `${b}?versioning`, getBucketVersioning);
        if (q.has("uploads")) return route(method, `${b}?uploads`, listMultipartUploads);
        if (q.get("list-type") === "2") return route(method, `${b}?list-type=2`, listObjectsV2);
        return route(method, b, listObjectsV1);
      case "POST":
        if (q.has("delete")) return route(method, `${b}?delete`, deleteObjects);
        break;
      case "PUT":
        if ([...Object.keys(q.toRecord())].length === 0) return route(method, b, createOwnBucket);
        throw notImplemented("bucket configuration");
      case "DELETE":
        return route(method, b, deleteBucketRefused);
    }
    throw methodNotAllowed(method);
  }
  const o = "/{bucket}/{key}";
  const copy = req.headers["x-amz-copy-source"] !== undefined;
  switch (method) {
    case "PUT":
      if (q.has("uploadId")) {
        return copy
          ? route(method, `${o}?partNumber&uploadId (copy)`, uploadPartCopy)
          : route(method, `${o}?partNumber&uploadId`, uploadPart);
      }
      return copy
        ? route(method, `${o} (copy)`, copyObject)
        : { ...route(method, o, putObject), preflight: putObjectPreflight };
    case "GET":
      return q.has("uploadId") ? route(method, `${o}?uploadId`, listParts) : route(method, o, getObject);
    case "HEAD":
      return route(method, o, headObject);
    case "DELETE":
      return q.has("uploadId") ? route(method, `${o}?uploadId`, abortMultipartUpload) : route(method, o, deleteObject);
    case "POST":
      if (q.has("uploads")) return route(method, `${o}?uploads`, createMultipartUpload);
      if (q.has("uploadId")) return route(method, `${o}?uploadId`, completeMultipartUpload);
      break;
  }
  throw methodNotAllowed(method);
}
