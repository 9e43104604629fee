/** What every S3 operation receives: the authenticated request and the stores. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ObjectStore } from "./object-store.js";
import type { Authenticated } from "./sigv4.js";
import type { RequestTarget } from "./target.js";
import type { UploadStore } from "./upload-store.js";

export interface S3Call {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: RequestTarget;
  readonly auth: Authenticated;
  /** The bucket named in the path; the credential's own bucket by the time an operation runs. */
  readonly bucket: string;
  /** The object key ("" for bucket operations). */
  readonly key: string;
  readonly store: ObjectStore;
  readonly uploads: UploadStore;
}

export type Operation = (call: S3Call) => Promise<void>;

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}
