/**
 * Lookup functions. They run in the program, read `cloudplatform:*` config (or the environment)
 * when called, and resolve to plain values without secrets.
 *
 * Their module (provider/functions.ts) brings the API client (undici, zod): it is loaded on the
 * first call, not by every program that only declares resources.
 *
 * @example
 * const zone = await cloudplatform.getDnsZone({ name: "example.com" });
 */
import type * as lookups from "../provider/functions.js";
import type { BucketCredentialInfo, BucketInfo, DnsZoneInfo } from "../provider/functions.js";

export type { BucketCredentialInfo, BucketInfo, DnsZoneInfo };

function load(): typeof lookups {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first call (above)
  return require("../provider/functions.js") as typeof lookups;
}

// Signatures written out (not `typeof lookups.getBucket`), so the declarations users read, and the
// API report (docs/public-api.md), name the argument and result types rather than the module.

/** All DNS zones of the project. */
export const getDnsZones = (): Promise<DnsZoneInfo[]> => load().getDnsZones();
/** The DNS zone of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export const getDnsZone = (args: { readonly name: string }): Promise<DnsZoneInfo> => load().getDnsZone(args);
/** All buckets of the project. */
export const getBuckets = (): Promise<BucketInfo[]> => load().getBuckets();
/** The bucket of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export const getBucket = (args: { readonly name: string }): Promise<BucketInfo> => load().getBucket(args);
/** The credentials of a bucket: access key ids and state, never secrets (the API lists none). */
export const getBucketCredentials = (args: { readonly bucketId: string }): Promise<BucketCredentialInfo[]> =>
  load().getBucketCredentials(args);
