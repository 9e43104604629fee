/**
 * Contracts between the emulator's three areas, so that each can be built and tested alone:
 * - management API + server front (server.ts, management/*, state.ts, auth.ts, cli.ts): owns buckets,
 *   credentials, zones, the API key and the JWT secret; composes the other two;
 * - S3 data plane (s3/*): owns object bytes on disk; asks the management state about credentials;
 * - transcription (transcription/*): owns uploads, transcripts and the balance.
 * Routes and shapes follow docs/api-contract.md.
 */
import type { FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AreaRoute } from "./router.js";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Counts requests per route template ("PUT /{bucket}/{key}"), for GET /_emulator/stats. */
export interface RouteCounter {
  /** `bucket`: the bucket an S3 request names in its path, also counted under it. */
  count(area: "management" | "s3" | "transcription", route: string, write: boolean, bucket?: string): void;
}

/** What the S3 plane needs from the management state (docs/api-contract.md §7). */
export interface CredentialDirectory {
  /** The credential with this access key id, or undefined when unknown (or its bucket is gone). */
  lookup(accessKeyId: string): { secretAccessKey: string; bucketName: string; active: boolean } | undefined;
  /** True when a bucket of this name exists in the management state. */
  bucketExists(bucketName: string): boolean;
}

/** The object store behind the S3 plane, as the management API and the inspection endpoints use it. */
export interface ObjectStoreApi {
  /** True when the bucket holds no object and no unfinished multipart upload. */
  isEmpty(bucketName: string): Promise<boolean>;
  /** Removes all bytes of a bucket (called after the management API deleted it). */
  dropBucket(bucketName: string): Promise<void>;
  /** Number of objects across all buckets. */
  countObjects(): Promise<number>;
  /** Removes everything. */
  reset(): Promise<void>;
}

export interface S3PlaneOptions {
  /** Directory for object bytes and multipart parts; it exists and is writable. */
  readonly dataDir: string;
  readonly credentials: CredentialDirectory;
  readonly logger: Logger;
  readonly counter: RouteCounter;
}

export interface S3Plane {
  /** Serves one request on the S3 port (path-style: /{bucket}/{key}). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  readonly objects: ObjectStoreApi;
  close(): Promise<void>;
}

export interface TranscriptionOptions {
  /** Directory for uploads and transcript records; it exists and is writable. */
  readonly dataDir: string;
  /** When false, records need not survive a restart (no --data-dir given). */
  readonly persistent: boolean;
  /** The public base URL of the transcription API (to build uploadUrl); known once listening. */
  readonly apiUrl: () => string;
  readonly syncWaitMs: number;
  readonly retentionDays: number;
  readonly allowLoopbackUrls: boolean;
  /** External speech engine command (`--transcriber`), given a 16 kHz mono WAV path as last argument. */
  readonly transcriber?: string;
  readonly initialBalanceUsd: number;
  /** The identifier clients know a transcript by, for the webhook payload (docs/api-contract.md §9.2). */
  readonly publicTranscriptId?: (id: string) => string | number;
  /** Checks the Authorization header like the management API (docs/api-contract.md §2). */
  readonly authenticate: (req: IncomingMessage) => boolean | Promise<boolean>;
  readonly logger: Logger;
  readonly counter: RouteCounter;
}

/**
 * A transcript as the console shows it: the fields of docs/api-contract.md §8.2 but `webhook_url`,
 * whose query may hold the receiver's secret.
 */
export interface TranscriptSummary {
  readonly id: string;
  readonly status: string;
  readonly language: string;
  readonly text: string | null;
  readonly audio_duration: number | null;
  readonly price_usd: number | null;
  readonly error: string | null;
  readonly created_at: string;
  readonly completed_at: string | null;
}

export interface TranscriptionService {
  /** The routes of docs/api-contract.md §8, for a server that routes and answers every area itself. */
  readonly routes: readonly AreaRoute[];
  /**
   * Serves a request whose path starts with /v1/ on its own, in the canonical shape and with
   * `authenticate`: for a server that hosts transcription alone.
   */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  getBalance(): number;
  setBalance(usd: number): void;
  countTranscripts(): number;
  /** Every transcript not past retention, for GET /_emulator/inventory. */
  inventory(): { id: string; status: string }[];
  /** Every transcript not past retention with what the console shows of it. */
  summaries(): TranscriptSummary[];
  reset(): Promise<void>;
  /** Stops timers and workers; running jobs are persisted as they are. */
  close(): Promise<void>;
}

/** An object as the console lists it. */
export interface ObjectSummary {
  readonly key: string;
  readonly size: number;
  readonly content_type: string;
  readonly last_modified: string;
  readonly etag: string;
}

export interface BucketListing {
  /** The number of objects in the bucket. */
  readonly count: number;
  /** Their total size, or null when the bucket holds more than MAX_SCANNED objects. */
  readonly bytes: number | null;
  /** The first `limit` objects in key order (all of them when not over MAX_SCANNED). */
  readonly objects: readonly ObjectSummary[];
  /** True when `objects` is not every object of the bucket. */
  readonly truncated: boolean;
}

export interface OpenedObject {
  readonly summary: ObjectSummary;
  /** A small object's bytes, or the open file of a larger one (the caller closes it). */
  readonly bytes?: Buffer;
  readonly file?: FileHandle;
}

/** A bucket's objects as the console reads them: from the S3 plane's files, not through S3. */
export interface ObjectListing {
  list(bucket: string, limit: number): Promise<BucketListing>;
  /** The current bytes of `key`, or undefined when there is no such object. */
  open(bucket: string, key: string): Promise<OpenedObject | undefined>;
}
