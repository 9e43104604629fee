/**
 * Everything the project holds that the import command can bring in: its DNS zones, its buckets and
 * each bucket's credentials, read through the provider's own list calls (every page, every answer
 * shape the provider reads). A bucket's credentials are listed a few buckets at a time, with
 * progress reported as they come.
 */
import type { Credential } from "../platform/bucket-credential/parse.js";
import type { Bucket } from "../platform/bucket/parse.js";
import type { Zone } from "../platform/dns-zone/parse.js";

/** The lists of the platform, as the provider reads them (platform/<kind>/api.ts). */
export interface Lister {
  zones(): Promise<Zone[]>;
  buckets(): Promise<Bucket[]>;
  credentials(bucketId: string): Promise<Credential[]>;
}

export interface Inventory {
  readonly zones: readonly Zone[];
  readonly buckets: readonly Bucket[];
  /** Per bucket id, of the buckets whose credentials were listed. */
  readonly credentials: ReadonlyMap<string, readonly Credential[]>;
}

export interface Progress {
  readonly zones: number;
  readonly buckets: number;
  /** Buckets whose credentials are listed so far, of `buckets`. */
  readonly bucketsListed: number;
  readonly credentials: number;
}

export interface DiscoverOptions {
  /** Buckets whose credentials are listed at once. @default 8 */
  readonly concurrency?: number;
  /** Whose credentials to list. @default every bucket */
  readonly credentialsOf?: (bucket: Bucket) => boolean;
  readonly onProgress?: (progress: Progress) => void;
}

export async function discover(lister: Lister, options: DiscoverOptions = {}): Promise<Inventory> {
  const [zones, buckets] = await Promise.all([lister.zones(), lister.buckets()]);
  const listed = buckets.filter(options.credentialsOf ?? (() => true));
  const credentials = new Map<string, Credential[]>();
  let count = 0;
  const report = () =>
    options.onProgress?.({
      zones: zones.length,
      buckets: listed.length,
      bucketsListed: credentials.size,
      credentials: count,
    });
  report();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < listed.length) {
      const bucket = listed[next++] as Bucket;
      const found = await lister.credentials(bucket.id);
      credentials.set(bucket.id, found);
      count += found.length;
      report();
    }
  };
  const concurrency = Math.max(1, options.concurrency ?? 8);
  await Promise.all(Array.from({ length: Math.min(concurrency, listed.length) }, worker));
  return { zones, buckets, credentials };
}
