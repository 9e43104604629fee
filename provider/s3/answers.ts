/**
 * Readers of the S3 answers the objects' resources use (docs/api-contract.md §7): an object's head,
 * a listing's entries, and an S3 error's code. The S3 client has parsed the XML already; what is
 * read here is what the cores compare, spelt their way.
 */
import { sha256MetadataKey } from "./fields.js";

/** An object as a HEAD of it answers. */
export interface LiveObject {
  readonly etag: string;
  readonly size: number;
  readonly contentType: string | undefined;
  readonly cacheControl: string | undefined;
  readonly contentDisposition: string | undefined;
  /** User metadata without the provider's own key. */
  readonly metadata: Record<string, string>;
  /** The content's SHA-256 as the provider wrote it in the metadata; undefined when the object has none. */
  readonly sha256: string | undefined;
}

interface HeadAnswer {
  readonly ETag?: string | undefined;
  readonly ContentLength?: number | undefined;
  readonly ContentType?: string | undefined;
  readonly CacheControl?: string | undefined;
  readonly ContentDisposition?: string | undefined;
  readonly Metadata?: Record<string, string> | undefined;
}

export function readHead(answer: HeadAnswer): LiveObject {
  const metadata: Record<string, string> = {};
  let sha256: string | undefined;
  for (const [key, value] of Object.entries(answer.Metadata ?? {})) {
    if (key.toLowerCase() === sha256MetadataKey) sha256 = value.toLowerCase();
    else metadata[key.toLowerCase()] = value;
  }
  return {
    etag: etagOf(answer.ETag),
    size: answer.ContentLength ?? 0,
    contentType: answer.ContentType,
    cacheControl: answer.CacheControl,
    contentDisposition: answer.ContentDisposition,
    metadata,
    sha256,
  };
}

/** One key of a listing. */
export interface ListedObject {
  readonly key: string;
  readonly etag: string;
  readonly size: number;
}

interface ListAnswer {
  readonly Contents?: readonly { Key?: string; ETag?: string; Size?: number }[] | undefined;
}

export function readListing(answer: ListAnswer): ListedObject[] {
  return (answer.Contents ?? []).flatMap((o) =>
    o.Key === undefined ? [] : [{ key: o.Key, etag: etagOf(o.ETag), size: o.Size ?? 0 }],
  );
}

/** ETags without their quotes: S3 quotes them in headers and in listings alike. */
export function etagOf(raw: string | undefined): string {
  return (raw ?? "").replace(/^"|"$/g, "");
}

/** What an S3 client's error says: the S3 code (`NoSuchKey`) and the HTTP status, when there was an answer. */
export interface S3Failure {
  readonly code: string | undefined;
  readonly status: number | undefined;
}

export function readS3Error(err: unknown): S3Failure {
  const e = err as { name?: unknown; Code?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  const status = e?.$metadata?.httpStatusCode;
  const code = typeof e?.Code === "string" ? e.Code : typeof e?.name === "string" ? e.name : undefined;
  // Without an answer the client names the transport's error (e.g. `TimeoutError`): no S3 code then.
  return {
    code: typeof status === "number" ? code : undefined,
    status: typeof status === "number" ? status : undefined,
  };
}
