// What the soak measures, as pure functions: the platform's inventory set against what the program
// declares (duplicates) and what the stack's state holds (orphans, missing objects). The names the
// program gives its objects are in examples/soak/index.ts.

/** The size of one deployment of examples/soak (its stack config). */
export interface Declaration {
  readonly buckets: number;
  readonly credentialsPerBucket: number;
  readonly zones: number;
  readonly namePrefix: string;
}

export interface PlatformBucket {
  readonly id: string;
  readonly name: string;
  /** Access key ids of the bucket's credentials. */
  readonly credentials: readonly string[];
}

export interface PlatformZone {
  readonly id: string;
  readonly name: string;
}

/** Everything on the platform, read through the management API. */
export interface Inventory {
  readonly buckets: readonly PlatformBucket[];
  readonly zones: readonly PlatformZone[];
}

/** The platform objects the stack's state holds, by the identifiers the platform uses. */
export interface Holdings {
  readonly bucketIds: ReadonlySet<string>;
  readonly credentialKeys: ReadonlySet<string>;
  readonly zoneIds: ReadonlySet<string>;
  /** Resources of the program in state (providers and the stack itself left out). */
  readonly resources: number;
  /** `pending_operations` left by an interrupted run, by type ("creating", "updating", ...). */
  readonly pending: Readonly<Record<string, number>>;
}

export interface KindCounts {
  readonly buckets: number;
  readonly credentials: number;
  readonly zones: number;
}

export interface Comparison {
  /** Objects beyond what the program declares (a second bucket for one resource, a third credential...). */
  readonly duplicates: KindCounts;
  /** Platform objects the state does not hold. */
  readonly orphans: KindCounts;
  /** Objects the state holds that the platform does not have. */
  readonly missing: KindCounts;
  /** Names of orphan buckets and zones, access key ids of orphan credentials (none is a secret). */
  readonly orphanNames: readonly string[];
}

export const bucketType = "pulumi-nodejs:dynamic/cloudplatform:Bucket";
export const credentialType = "pulumi-nodejs:dynamic/cloudplatform:BucketCredential";
export const zoneType = "pulumi-nodejs:dynamic/cloudplatform:DnsZone";

const pad = (n: number): string => String(n).padStart(2, "0");

export function total(counts: KindCounts): number {
  return counts.buckets + counts.credentials + counts.zones;
}

export function addCounts(a: KindCounts, b: KindCounts): KindCounts {
  return { buckets: a.buckets + b.buckets, credentials: a.credentials + b.credentials, zones: a.zones + b.zones };
}

export const noCounts: KindCounts = { buckets: 0, credentials: 0, zones: 0 };

/** How many platform writes a clean `up` of the declaration makes: one create per resource. */
export function declaredCreates(d: Declaration): number {
  return d.buckets * (1 + d.credentialsPerBucket) + d.zones;
}

/** The program names even buckets itself and lets odd ones be auto-named. */
export function isNamedBucket(index: number): boolean {
  return index % 2 === 0;
}

export function bucketLogicalName(index: number): string {
  return `bucket-${pad(index)}`;
}

export function zoneName(d: Declaration, index: number): string {
  return `zone-${pad(index)}.${d.namePrefix}.test`;
}

export function namedBucketName(d: Declaration, index: number): string {
  return `${d.namePrefix}-${bucketLogicalName(index)}`;
}

/**
 * The declared bucket a platform bucket belongs to, by its name: "<prefix>-bucket-NN" for the named
 * ones, "bucket-NN-" and the provider's 7 random characters for the auto-named ones.
 */
export function declaredBucketIndex(d: Declaration, name: string): number | undefined {
  const auto = /^bucket-(\d{2,})-[a-z0-9]{7}$/.exec(name);
  const named = name.startsWith(`${d.namePrefix}-`)
    ? /^bucket-(\d{2,})$/.exec(name.slice(d.namePrefix.length + 1))
    : null;
  const match = auto ?? named;
  if (!match) return undefined;
  const index = Number(match[1]);
  if (index >= d.buckets || isNamedBucket(index) !== (named !== null)) return undefined;
  return index;
}

interface ExportedResource {
  readonly type?: string;
  readonly id?: string;
  readonly outputs?: Record<string, unknown>;
}

interface ExportedOperation {
  readonly type?: string;
}

/** Reads `pulumi stack export` (without --show-secrets): the ids of what the state holds. */
export function holdingsFromExport(exported: string): Holdings {
  const deployment = (JSON.parse(exported) as { deployment?: Record<string, unknown> }).deployment ?? {};
  const resources = (deployment["resources"] as ExportedResource[] | undefined) ?? [];
  const operations = (deployment["pending_operations"] as ExportedOperation[] | undefined) ?? [];
  const bucketIds = new Set<string>();
  const credentialKeys = new Set<string>();
  const zoneIds = new Set<string>();
  let count = 0;
  for (const r of resources) {
    const outputs = r.outputs ?? {};
    const text = (key: string): string | undefined =>
      typeof outputs[key] === "string" && outputs[key] !== "" ? (outputs[key] as string) : undefined;
    if (r.type === bucketType) {
      const id = text("bucketId") ?? r.id;
      if (id) bucketIds.add(id);
    } else if (r.type === credentialType) {
      const key = text("accessKeyId") ?? r.id;
      if (key) credentialKeys.add(key);
    } else if (r.type === zoneType) {
      const id = text("zoneId") ?? r.id;
      if (id) zoneIds.add(id);
    } else continue;
    count++;
  }
  const pending: Record<string, number> = {};
  for (const op of operations) pending[op.type ?? "unknown"] = (pending[op.type ?? "unknown"] ?? 0) + 1;
  return { bucketIds, credentialKeys, zoneIds, resources: count, pending };
}

/** Holdings of a stack that has no state yet (no `up` ever recorded anything). */
export const emptyHoldings: Holdings = {
  bucketIds: new Set(),
  credentialKeys: new Set(),
  zoneIds: new Set(),
  resources: 0,
  pending: {},
};

function duplicatesOf(d: Declaration, inventory: Inventory): KindCounts {
  const perBucket = new Map<number, { buckets: number; credentials: number }>();
  for (const b of inventory.buckets) {
    const index = declaredBucketIndex(d, b.name);
    if (index === undefined) continue;
    const seen = perBucket.get(index) ?? { buckets: 0, credentials: 0 };
    perBucket.set(index, { buckets: seen.buckets + 1, credentials: seen.credentials + b.credentials.length });
  }
  let buckets = 0;
  let credentials = 0;
  for (const seen of perBucket.values()) {
    buckets += Math.max(0, seen.buckets - 1);
    credentials += Math.max(0, seen.credentials - d.credentialsPerBucket);
  }
  let zones = 0;
  for (let i = 0; i < d.zones; i++) {
    const name = zoneName(d, i);
    zones += Math.max(0, inventory.zones.filter((z) => z.name === name).length - 1);
  }
  return { buckets, credentials, zones };
}

/** The platform against the declaration and the state, once the stack has converged. */
export function compare(d: Declaration, inventory: Inventory, holdings: Holdings): Comparison {
  const orphanNames: string[] = [];
  let orphanBuckets = 0;
  let orphanCredentials = 0;
  const liveCredentials = new Set<string>();
  for (const b of inventory.buckets) {
    if (!holdings.bucketIds.has(b.id)) {
      orphanBuckets++;
      orphanNames.push(b.name);
    }
    for (const key of b.credentials) {
      liveCredentials.add(key);
      if (!holdings.credentialKeys.has(key)) {
        orphanCredentials++;
        orphanNames.push(key);
      }
    }
  }
  const orphanZones = inventory.zones.filter((z) => !holdings.zoneIds.has(z.id));
  orphanNames.push(...orphanZones.map((z) => z.name));
  const liveBuckets = new Set(inventory.buckets.map((b) => b.id));
  const liveZones = new Set(inventory.zones.map((z) => z.id));
  const absent = (held: ReadonlySet<string>, live: ReadonlySet<string>): number =>
    [...held].filter((id) => !live.has(id)).length;
  return {
    duplicates: duplicatesOf(d, inventory),
    orphans: { buckets: orphanBuckets, credentials: orphanCredentials, zones: orphanZones.length },
    missing: {
      buckets: absent(holdings.bucketIds, liveBuckets),
      credentials: absent(holdings.credentialKeys, liveCredentials),
      zones: absent(holdings.zoneIds, liveZones),
    },
    orphanNames,
  };
}

/** After `destroy` every object left on the platform is an orphan. */
export function leftovers(inventory: Inventory): KindCounts {
  return {
    buckets: inventory.buckets.length,
    credentials: inventory.buckets.reduce((n, b) => n + b.credentials.length, 0),
    zones: inventory.zones.length,
  };
}

/**
 * What blocks an `up` with "name taken": declared zones and named buckets that exist on the platform
 * but not in the state (an interrupted create made them). Auto-named buckets never collide.
 */
export function conflictingObjects(
  d: Declaration,
  inventory: Inventory,
  holdings: Holdings,
): { zones: PlatformZone[]; buckets: { logicalName: string; bucket: PlatformBucket }[] } {
  const declaredZones = new Set(Array.from({ length: d.zones }, (_, i) => zoneName(d, i)));
  const zones = inventory.zones.filter((z) => declaredZones.has(z.name) && !holdings.zoneIds.has(z.id));
  const buckets = inventory.buckets.flatMap((bucket) => {
    const index = declaredBucketIndex(d, bucket.name);
    if (index === undefined || !isNamedBucket(index) || holdings.bucketIds.has(bucket.id)) return [];
    return [{ logicalName: bucketLogicalName(index), bucket }];
  });
  return { zones, buckets };
}
