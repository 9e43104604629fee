/**
 * The S3 data plane: path-style S3 over plain node:http (docs/api-contract.md §7). Every request is
 * verified with SigV4 against the management state's credentials; a credential reaches only its own
 * bucket. Bytes stream to disk under opts.dataDir and memory stays bounded whatever the object size.
 */
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Refuse } from "../front.js";
import type { ObjectStoreApi, S3Plane, S3PlaneOptions } from "../interfaces.js";
import { OWNER_ID } from "./bucket-operations.js";
import type { S3Call } from "./call.js";
import { accessDenied, S3Error } from "./errors.js";
import { ObjectStore } from "./object-store.js";
import { sendError, sendXml } from "./respond.js";
import { resolveRoute } from "./router.js";
import { authenticate, type Authenticated } from "./sigv4.js";
import { parseTarget } from "./target.js";
import { UploadStore } from "./upload-store.js";

const newRequestId = (): string => randomBytes(8).toString("hex").toUpperCase();

const FAULT_CODES: Readonly<Record<number, string>> = {
  400: "InvalidRequest",
  408: "RequestTimeout",
  429: "SlowDown",
  500: "InternalError",
  503: "ServiceUnavailable",
};

/** An error the server front answers itself (injected fault, stalled body), as S3 XML. */
export const refuseS3: Refuse = (req, res, status, message, headers) => {
  const code = FAULT_CODES[status] ?? (status >= 500 ? "ServiceUnavailable" : "InvalidRequest");
  const requestId = newRequestId();
  const resource = (req.url ?? "/").split("?")[0]!;
  sendError(res, new S3Error(status, code, message), requestId, resource, req.method === "HEAD", {
    "x-amz-request-id": requestId,
    ...headers,
  });
};

export function createS3Plane(opts: S3PlaneOptions): S3Plane {
  const store = new ObjectStore(opts.dataDir);
  const uploads = new UploadStore(store);
  const ready = store.init();
  const startedAt = new Date().toISOString();
  const inFlight = new Set<Promise<void>>();

  const listBuckets = (res: ServerResponse, auth: Authenticated) => {
    const own = opts.credentials.bucketExists(auth.bucketName)
      ? [
          [
            "Bucket",
            [
              ["Name", auth.bucketName],
              ["CreationDate", startedAt],
            ],
          ] as const,
        ]
      : [];
    sendXml(res, 200, "ListAllMyBucketsResult", [
      [
        "Owner",
        [
          ["ID", OWNER_ID],
          ["DisplayName", OWNER_ID],
        ],
      ],
      ["Buckets", own],
    ]);
  };

  async function serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const method = req.method ?? "GET";
    let resource = req.url ?? "/";
    try {
      await ready;
      const target = parseTarget(method, req.url ?? "/");
      resource = target.rawPath;
      if (target.bucket === undefined) {
        opts.counter.count("s3", `${method} /`, method !== "GET" && method !== "HEAD");
        if (method !== "GET")
          throw new S3Error(405, "MethodNotAllowed", `The method ${method} is not allowed on the service root.`);
        listBuckets(res, await authenticate(req, target, opts.credentials));
        return;
      }
      const route = resolveRoute(target, req);
      opts.counter.count("s3", route.template, route.write, target.bucket);
      const auth = await authenticate(req, target, opts.credentials);
      if (!opts.credentials.bucketExists(target.bucket)) {
        throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist.", { BucketName: target.bucket });
      }
      if (target.bucket !== auth.bucketName) throw accessDenied();
      const call: S3Call = { req, res, target, auth, bucket: target.bucket, key: target.key ?? "", store, uploads };
      await route.preflight?.(call);
      // Only now may a client waiting on "Expect: 100-continue" send its body. Node sends the 100
      // itself when the server has no 'checkContinue' listener; `_sent100` tells whether it did.
      const sent100 = (res as ServerResponse & { _sent100?: boolean })._sent100 === true;
      if (/100-continue/i.test(String(req.headers.expect ?? "")) && !sent100) res.writeContinue();
      await route.operation(call);
    } catch (err) {
      if (err instanceof S3Error) {
        sendError(res, err, requestId, resource, method === "HEAD");
        return;
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ECONNRESET" || req.destroyed) {
        opts.logger.warn("s3 request aborted by the client", { requestId, method });
        return;
      }
      opts.logger.error("s3 request failed", { requestId, method, error: (err as Error).message });
      sendError(
        res,
        new S3Error(500, "InternalError", "We encountered an internal error. Please try again."),
        requestId,
        resource,
        method === "HEAD",
      );
    }
  }

  const objects: ObjectStoreApi = {
    async isEmpty(bucketName) {
      await ready;
      return (await store.objectCount(bucketName)) === 0 && (await uploads.list(bucketName)).length === 0;
    },
    async dropBucket(bucketName) {
      await ready;
      await store.drop(bucketName);
      await uploads.dropBucket(bucketName);
    },
    async countObjects() {
      await ready;
      let total = 0;
      for (const bucket of await store.bucketsOnDisk()) total += await store.objectCount(bucket);
      return total;
    },
    async reset() {
      await ready;
      for (const bucket of await store.bucketsOnDisk()) await store.drop(bucket);
      await rm(store.uploadsRoot(), { recursive: true, force: true });
    },
  };

  return {
    handle(req, res) {
      const requestId = newRequestId();
      res.setHeader("x-amz-request-id", requestId);
      res.setHeader("x-amz-id-2", requestId);
      const task = serve(req, res, requestId).finally(() => inFlight.delete(task));
      inFlight.add(task);
    },
    objects,
    async close() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
