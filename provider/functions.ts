/**
 * Lookup functions over the management API. They run in the program's process (not the provider
 * host), read the settings at call time from the stack config (`cloudplatform:*`) or the
 * environment, and return plain values. None returns a secret.
 */
import { getConfig } from "@pulumi/pulumi/runtime/config";
import * as log from "@pulumi/pulumi/log";
import { findBucketByName, listBuckets, listCredentials, listZones } from "./api.js";
import { ApiClient } from "./client.js";
import { ProviderConfig } from "./config.js";
import { NotFoundError } from "./errors.js";
import { redact } from "./redact.js";
import { zoneOutputs, type DnsZoneOutputs } from "./resources/dnsZone.js";
import { normalizeDomain } from "./resources/validate.js";
import type { Bucket } from "./shapes.js";

/** The program's settings: its stack config (what `pulumi.Config("cloudplatform")` reads), then the environment. */
const programConfig = new ProviderConfig((key) => getConfig(key));

/** What a lookup needs, built when it runs: a client for the settings read now. */
function client(): ApiClient {
  const warn = (m: string) => void log.warn(redact(m));
  return new ApiClient(programConfig.settings(warn), { onRetry: warn });
}

/** A DNS zone as the lookups return it: the outputs a DnsZone resource has. */
export type DnsZoneInfo = DnsZoneOutputs;

export interface BucketInfo {
  readonly bucketId: string;
  readonly name: string;
  readonly storageClass?: string;
  readonly createdAt?: string;
}

export interface BucketCredentialInfo {
  readonly accessKeyId: string;
  readonly bucketId: string;
  readonly active: boolean;
  readonly createdAt?: string;
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function bucketInfo(b: Bucket): BucketInfo {
  return { bucketId: b.id, name: b.name, ...opt("storageClass", b.storage_class), ...opt("createdAt", b.created_at) };
}

/** All DNS zones of the project. */
export async function getDnsZones(): Promise<DnsZoneInfo[]> {
  return (await listZones(client())).map(zoneOutputs);
}

/** The DNS zone of that name; fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export async function getDnsZone(args: { readonly name: string }): Promise<DnsZoneInfo> {
  const name = normalizeDomain(args.name);
  const zone = (await listZones(client(), name))[0];
  if (zone === undefined) {
    throw new NotFoundError(
      `getDnsZone: no DNS zone named "${name}" exists`,
      "Check the name, or create it with a DnsZone resource.",
    );
  }
  return zoneOutputs(zone);
}

/** All buckets of the project. */
export async function getBuckets(): Promise<BucketInfo[]> {
  return (await listBuckets(client())).map(bucketInfo);
}

/** The bucket of that name; fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export async function getBucket(args: { readonly name: string }): Promise<BucketInfo> {
  const b = await findBucketByName(client(), args.name);
  if (b === undefined) {
    throw new NotFoundError(
      `getBucket: no bucket named "${args.name}" exists`,
      "Check the name, or create it with a Bucket resource.",
    );
  }
  return bucketInfo(b);
}

/** The credentials of a bucket: access key ids and state, never secrets (the API lists none). */
export async function getBucketCredentials(args: { readonly bucketId: string }): Promise<BucketCredentialInfo[]> {
  return (await listCredentials(client(), args.bucketId)).map((c) => ({
    accessKeyId: c.access_key_id,
    bucketId: c.bucket_id ?? args.bucketId,
    active: c.active ?? true,
    ...opt("createdAt", c.created_at),
  }));
}
