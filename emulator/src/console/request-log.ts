/** Where a request went: the three areas of the platform. */
export type RequestArea = "management" | "s3" | "transcription";

/**
 * One platform request as the console shows it. Only what the log line already says: never a
 * header, a query string (presigned signatures, upload tokens) or a body.
 */
export interface RequestRecord {
  /** Increases by one per request over the emulator's life, also across a reset. */
  readonly seq: number;
  /** When the request arrived, ISO 8601. */
  readonly time: string;
  readonly method: string;
  /** The route template when an area routed it (`/object-storage/buckets/{bucketId}`), else the path. */
  readonly route: string;
  readonly area: RequestArea;
  /** null when no answer was sent (a dropped or lost answer, or the client went away). */
  readonly status: number | null;
  readonly ms: number;
  /** The error code of a failed answer (`not_found`, S3 `NoSuchKey`), when the area named one. */
  readonly error?: string;
  /** The fault the emulator injected: `drop`, `lose`, `garble` or a status such as `503`. */
  readonly fault?: string;
}

/** Requests kept for the console; older ones drop off. Enough for a deployment of a few hundred resources. */
export const REQUEST_LOG_CAPACITY = 1000;

/**
 * The last requests in a ring, read by cursor: a reader asks for what came after the last `seq` it
 * saw, so a poll costs only the new entries and misses none that are still kept.
 */
export class RequestLog {
  private readonly ring: (RequestRecord | undefined)[];
  private next = 1;
  /** Changes on every clear, so a reader knows to drop what it holds. */
  private epoch = 1;
  /** The last `seq` before the last clear. */
  private clearedAt = 0;

  constructor(readonly capacity = REQUEST_LOG_CAPACITY) {
    this.ring = new Array<RequestRecord | undefined>(capacity);
  }

  add(record: Omit<RequestRecord, "seq">): void {
    const seq = this.next++;
    this.ring[seq % this.capacity] = { seq, ...record };
  }

  /**
   * The kept requests with a `seq` above `after`, oldest first, the cursor for the next read, and
   * how many requests came since the last clear (kept or not).
   */
  since(after: number): { epoch: number; requests: RequestRecord[]; last: number; total: number } {
    const last = this.next - 1;
    const first = Math.max(after + 1, this.next - this.capacity, 1);
    const requests: RequestRecord[] = [];
    for (let seq = first; seq <= last; seq++) {
      const record = this.ring[seq % this.capacity];
      if (record?.seq === seq) requests.push(record);
    }
    return { epoch: this.epoch, requests, last, total: last - this.clearedAt };
  }

  /** Forgets every request (POST /_emulator/reset); `seq` keeps counting. */
  clear(): void {
    this.ring.fill(undefined);
    this.epoch += 1;
    this.clearedAt = this.next - 1;
  }
}

/**
 * A path no area routed, as the console shows it: a segment that could be a credential (an API key
 * `cp-…`, a JWT `eyJ…`, anything of 32 characters or more, as an S3 secret) is hidden, in case a
 * client put one in a path by mistake. Routed requests show their template, which holds none.
 */
export function maskPath(pathname: string): string {
  return pathname
    .split("/")
    .map((segment) => (/^(cp-|eyJ)/i.test(segment) || segment.length >= 32 ? "{hidden}" : segment))
    .join("/");
}
