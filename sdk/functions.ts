/**
 * Lookup functions. They run in the program, read `cloudplatform:*` config (or the environment)
 * when called, and resolve to plain values without secrets.
 *
 * @example
 * const zone = await cloudplatform.getDnsZone({ name: "example.com" });
 */
export { getBucket, getBucketCredentials, getBuckets, getDnsZone, getDnsZones } from "../provider/functions.js";
export type { BucketCredentialInfo, BucketInfo, DnsZoneInfo } from "../provider/functions.js";
