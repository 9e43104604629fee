/**
 * Lookup functions over the management API, written once and served by both hosts:
 * - in a TypeScript program, as the SDK's `getDnsZone()` etc.: they run in the program's process
 *   and build their client from the program's settings (stack config `cloudplatform:*`, then the
 *   environment) when called;
 * - by the executable provider, as the invokes `cloudplatform:index:getDnsZone` etc. of every other
 *   language (`lookups` below; plugin/invoke.ts): they run in the plugin with the provider's client.
 * Arguments and results are field tables like the resources' (tables.ts), made of the resources'
 * own fields, so the plugin schema, the result types and the argument checks follow from them.
 * None returns a secret.
 */
import { getConfig } from "@pulumi/pulumi/runtime/config";
import * as log from "@pulumi/pulumi/log";
import { listCredentials } from "./platform/bucket-credential/api.js";
import { findBucketByName, listBuckets } from "./platform/bucket/api.js";
import { listZones } from "./platform/dns-zone/api.js";
import { ApiClient } from "./client.js";
import { ProviderConfig } from "./config.js";
import type { CheckFailure, Json, Props } from "./vocabulary.js";
import { NotFoundError } from "./errors.js";
import { type Field, type FieldKind, type OutputsOf, type ResourceTable } from "./tables.js";
import { redact } from "./redact.js";
import { bucketTable } from "./resources/bucket/fields.js";
import { bucketCredentialTable } from "./resources/bucket-credential/fields.js";
import { dnsZoneTable } from "./resources/dns-zone/fields.js";
import { zoneOutputs } from "./resources/dns-zone/core.js";
import { normalizeDomain } from "./resources/validate.js";
import type { Credential } from "./platform/bucket-credential/parse.js";
import type { Bucket } from "./platform/bucket/parse.js";

/**
 * A resource's field as a lookup reports it: same kind, and the first sentence of the resource's
 * text (what the value is, not what changing it does), unless `description` says it better.
 */
function reported<F extends Field>(field: F, description?: string): { kind: F["kind"]; description: string } {
  return { kind: field.kind, description: description ?? firstSentence(field.description) };
}

/** Up to the first full stop followed by a capital letter: "e.g. `active`" does not end it. */
export function firstSentence(text: string): string {
  const end = /\.\s+(?=[A-Z])/.exec(text);
  return end === null ? text : text.slice(0, end.index + 1);
}

/** A DNS zone as the lookups return it: the outputs a DnsZone resource has. */
export const dnsZoneInfoTable = {
  type: "DnsZoneInfo",
  description: "A DNS zone of the project, as the lookups find it.",
  fields: {
    zoneId: reported(dnsZoneTable.fields.zoneId),
    name: reported(dnsZoneTable.fields.name),
    status: { ...reported(dnsZoneTable.fields.status), optional: true },
    nameservers: reported(dnsZoneTable.fields.nameservers),
    createdAt: dnsZoneTable.fields.createdAt,
  },
} as const satisfies ResourceTable;

export const bucketInfoTable = {
  type: "BucketInfo",
  description: "A bucket of the project, as the lookups find it.",
  fields: {
    bucketId: reported(bucketTable.fields.bucketId),
    name: reported(bucketTable.fields.name),
    storageClass: { ...reported(bucketTable.fields.storageClass), optional: true },
    createdAt: bucketTable.fields.createdAt,
  },
} as const satisfies ResourceTable;

export const bucketCredentialInfoTable = {
  type: "BucketCredentialInfo",
  description: "An S3 credential of a bucket, as the lookups find it: never its secret, which the API lists for none.",
  fields: {
    accessKeyId: reported(bucketCredentialTable.fields.accessKeyId),
    bucketId: reported(bucketCredentialTable.fields.bucketId),
    active: reported(bucketCredentialTable.fields.active, "False when the credential is deactivated (S3 refuses it)."),
    createdAt: bucketCredentialTable.fields.createdAt,
  },
} as const satisfies ResourceTable;

export type DnsZoneInfo = OutputsOf<typeof dnsZoneInfoTable>;
export type BucketInfo = OutputsOf<typeof bucketInfoTable>;
export type BucketCredentialInfo = OutputsOf<typeof bucketCredentialInfoTable>;

// The lookups themselves, given a client: the only place each is written.

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function bucketInfo(b: Bucket): BucketInfo {
  return { bucketId: b.id, name: b.name, ...opt("storageClass", b.storage_class), ...opt("createdAt", b.created_at) };
}

function credentialInfo(bucketId: string, c: Credential): BucketCredentialInfo {
  return {
    accessKeyId: c.access_key_id,
    bucketId: c.bucket_id ?? bucketId,
    active: c.active ?? true,
    ...opt("createdAt", c.created_at),
  };
}

async function findZones(client: ApiClient): Promise<DnsZoneInfo[]> {
  return (await listZones(client)).map(zoneOutputs);
}

async function findZone(client: ApiClient, args: { readonly name: string }): Promise<DnsZoneInfo> {
  const name = normalizeDomain(args.name);
  const zone = (await listZones(client, name))[0];
  if (zone === undefined) {
    throw new NotFoundError(
      `getDnsZone: no DNS zone named "${name}" exists`,
      "Check the name, or create it with a DnsZone resource.",
    );
  }
  return zoneOutputs(zone);
}

async function findBuckets(client: ApiClient): Promise<BucketInfo[]> {
  return (await listBuckets(client)).map(bucketInfo);
}

async function findBucket(client: ApiClient, args: { readonly name: string }): Promise<BucketInfo> {
  const b = await findBucketByName(client, args.name);
  if (b === undefined) {
    throw new NotFoundError(
      `getBucket: no bucket named "${args.name}" exists`,
      "Check the name, or create it with a Bucket resource.",
    );
  }
  return bucketInfo(b);
}

async function findCredentials(
  client: ApiClient,
  args: { readonly bucketId: string },
): Promise<BucketCredentialInfo[]> {
  return (await listCredentials(client, args.bucketId)).map((c) => credentialInfo(args.bucketId, c));
}

// In a TypeScript program.

/** The program's settings: its stack config (what `pulumi.Config("cloudplatform")` reads), then the environment. */
const programConfig = new ProviderConfig((key) => getConfig(key));

/** What a lookup needs, built when it runs: a client for the settings read now. */
function programClient(): ApiClient {
  const warn = (m: string) => void log.warn(redact(m));
  return new ApiClient(programConfig.settings(warn), { onRetry: warn });
}

/** All DNS zones of the project. */
export async function getDnsZones(): Promise<DnsZoneInfo[]> {
  return findZones(programClient());
}

/** The DNS zone of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export async function getDnsZone(args: { readonly name: string }): Promise<DnsZoneInfo> {
  return findZone(programClient(), args);
}

/** All buckets of the project. */
export async function getBuckets(): Promise<BucketInfo[]> {
  return findBuckets(programClient());
}

/** The bucket of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none. */
export async function getBucket(args: { readonly name: string }): Promise<BucketInfo> {
  return findBucket(programClient(), args);
}

/** The credentials of a bucket: access key ids and state, never secrets (the API lists none). */
export async function getBucketCredentials(args: { readonly bucketId: string }): Promise<BucketCredentialInfo[]> {
  return findCredentials(programClient(), args);
}

// As invokes of the executable provider.

/** What an invoke returns: one object (the fields of a table), or a list of them under one key. */
export type LookupResult =
  | { readonly object: ResourceTable }
  | { readonly list: string; readonly of: ResourceTable; readonly description: string };

export interface Lookup {
  /** The SDK's function name and the invoke token's last part (`cloudplatform:index:<name>`). */
  readonly name: string;
  /** The schema's text; the TypeScript function's TSDoc says the same (test/unit/plugin-invoke.test.ts). */
  readonly description: string;
  /** The arguments (the schema's function inputs). */
  readonly args: Readonly<Record<string, Field>>;
  readonly result: LookupResult;
  /** Runs it with the provider's client; answers the invoke's result (plain JSON, no secret). */
  invoke(client: ApiClient, args: Props): Promise<Record<string, Json>>;
}

/** Plain JSON of a result (its optional fields absent, never undefined). */
const json = (value: object): Record<string, Json> => value as Record<string, Json>;

/** Every lookup of the TypeScript SDK, as the executable provider serves it. */
export const lookups: readonly Lookup[] = [
  {
    name: "getDnsZone",
    description: "The DNS zone of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none.",
    args: { name: { ...reported(dnsZoneTable.fields.name), required: true } },
    result: { object: dnsZoneInfoTable },
    invoke: async (client, args) => json(await findZone(client, args as { name: string })),
  },
  {
    name: "getDnsZones",
    description: "All DNS zones of the project.",
    args: {},
    result: { list: "zones", of: dnsZoneInfoTable, description: "The project's DNS zones." },
    invoke: async (client) => ({ zones: (await findZones(client)).map(json) }),
  },
  {
    name: "getBucket",
    description: "The bucket of that name. Fails with `CLOUDPLATFORM_NOT_FOUND` when there is none.",
    args: { name: { ...reported(bucketTable.fields.name), required: true } },
    result: { object: bucketInfoTable },
    invoke: async (client, args) => json(await findBucket(client, args as { name: string })),
  },
  {
    name: "getBuckets",
    description: "All buckets of the project.",
    args: {},
    result: { list: "buckets", of: bucketInfoTable, description: "The project's buckets." },
    invoke: async (client) => ({ buckets: (await findBuckets(client)).map(json) }),
  },
  {
    name: "getBucketCredentials",
    description: "The credentials of a bucket: access key ids and state, never secrets (the API lists none).",
    args: { bucketId: { kind: "string", required: true, description: "The bucket whose credentials to list." } },
    result: { list: "credentials", of: bucketCredentialInfoTable, description: "The bucket's credentials." },
    invoke: async (client, args) => ({
      credentials: (await findCredentials(client, args as { bucketId: string })).map(json),
    }),
  },
];

const jsonKind: Record<FieldKind, (v: Json) => boolean> = {
  string: (v) => typeof v === "string",
  boolean: (v) => typeof v === "boolean",
  number: (v) => typeof v === "number",
  stringMap: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  stringList: (v) => Array.isArray(v),
};

/** What is wrong with an invoke's arguments: unknown names, missing required ones, wrong kinds. */
export function argumentFailures(lookup: Lookup, args: Props): CheckFailure[] {
  const known = Object.keys(lookup.args);
  const takes = known.length === 0 ? "it takes none" : `its arguments are ${known.join(", ")}`;
  const failures: CheckFailure[] = Object.keys(args)
    .filter((name) => !known.includes(name))
    .map((name) => ({ property: name, reason: `${lookup.name} has no argument "${name}"; ${takes}` }));
  for (const [name, field] of Object.entries(lookup.args)) {
    const value = args[name];
    if (value === undefined || value === null) {
      if (field.required) failures.push({ property: name, reason: `${lookup.name} needs ${name} (a ${field.kind})` });
    } else if (!jsonKind[field.kind](value)) {
      failures.push({ property: name, reason: `${lookup.name}: ${name} must be a ${field.kind}` });
    }
  }
  return failures;
}
