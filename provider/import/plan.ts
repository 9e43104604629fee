/**
 * What `cloudplatform-import` brings in: from what the project holds (discover.ts) and what the
 * stack manages already (stack.ts), the objects to import, each with its name (names.ts), and what
 * it leaves out and why. Given the stack a move comes from, only the objects that stack holds.
 */
import { keyForm } from "../answers/object.js";
import { storageClasses } from "../resources/bucket/fields.js";
import type { Credential } from "../platform/bucket-credential/parse.js";
import type { Bucket } from "../platform/bucket/parse.js";
import type { Inventory } from "./discover.js";
import { bucketBase, keySuffixes, NameAllocator, zoneBase } from "./names.js";
import type { StackHoldings } from "./stack.js";

export interface ZoneItem {
  readonly kind: "DnsZone";
  /** The logical name, also the variable of the generated code. */
  readonly name: string;
  /** The import id. */
  readonly id: string;
  readonly zoneName: string;
}

export interface BucketItem {
  readonly kind: "Bucket";
  readonly name: string;
  readonly id: string;
  readonly bucketName: string;
  /** As a program spells it (`Standard`, …); undefined when the platform does not say. */
  readonly storageClass: string | undefined;
}

export interface CredentialItem {
  readonly kind: "BucketCredential";
  readonly name: string;
  /** `<bucketId>/<accessKeyId>`. */
  readonly id: string;
  readonly bucketId: string;
  readonly accessKeyId: string;
  /** Undefined when the platform does not say. */
  readonly active: boolean | undefined;
  readonly bucketName: string;
  /** The name of its bucket's item when the bucket is imported too (the generated code refers to it). */
  readonly bucket: string | undefined;
}

export type Item = ZoneItem | BucketItem | CredentialItem;
export type Kind = Item["kind"];

/** Something the command does not bring in, why, and what to do instead. */
export interface Skipped {
  readonly what: string;
  readonly why: string;
  readonly todo: string;
}

export type Counts = Readonly<Record<Kind, number>>;

export interface Plan {
  /** Zones, then buckets each followed by its credentials, in the order of their platform names. */
  readonly items: readonly Item[];
  /** Objects the target stack manages already, left out. */
  readonly managed: Counts;
  readonly skipped: readonly Skipped[];
}

export interface PlanOptions {
  /** The stack the objects are brought into: what it holds is left out, its names are not reused. */
  readonly target: StackHoldings;
  /** A stack moved from: only what it holds is brought in. */
  readonly source?: { readonly name: string; readonly holdings: StackHoldings };
}

/** The project API key: never imported. */
export const apiKeySkipped: Skipped = {
  what: "the project API key",
  why:
    "the platform cannot read it back, and creating an ApiKey resource generates a new key: the key in use " +
    "would stop working at once",
  todo:
    "leave it out (the provider keeps authenticating with cloudplatform:apiKey). When you want Pulumi to rotate " +
    "it, declare an ApiKey resource, run `pulumi up`, and set cloudplatform:apiKey to its `key` output",
};

/** The platform's storage class as a program spells it (`STANDARD` → `Standard`). */
function programClass(bucket: Bucket): string | undefined {
  const live = bucket.storage_class;
  return live === undefined ? undefined : (storageClasses.find((c) => keyForm(c) === keyForm(live)) ?? live);
}

const byName = <T extends { readonly name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
const byKey = (a: Credential, b: Credential): number =>
  a.access_key_id < b.access_key_id ? -1 : a.access_key_id > b.access_key_id ? 1 : 0;

const zero = (): Record<Kind, number> => ({ DnsZone: 0, Bucket: 0, BucketCredential: 0 });

export function plan(inventory: Inventory, options: PlanOptions): Plan {
  const { target, source } = options;
  const names = new NameAllocator(target.names);
  const managed = zero();
  const skipped: Skipped[] = source === undefined ? [apiKeySkipped] : movedSkips(inventory, source);
  /** Whether an object belongs in this import: not managed by the target, and (moving) held by the source. */
  const wanted = (kind: Kind, id: string, held: ReadonlySet<string>, fromSource: ReadonlySet<string> | undefined) => {
    if (fromSource !== undefined && !fromSource.has(id)) return false;
    if (!held.has(id)) return true;
    managed[kind] += 1;
    return false;
  };

  const items: Item[] = [];
  for (const zone of [...inventory.zones].sort(byName)) {
    if (!wanted("DnsZone", zone.id, target.zones, source?.holdings.zones)) continue;
    items.push({ kind: "DnsZone", name: names.take(zoneBase(zone.name)), id: zone.id, zoneName: zone.name });
  }
  for (const bucket of [...inventory.buckets].sort(byName)) {
    let bucketItem: string | undefined;
    if (wanted("Bucket", bucket.id, target.buckets, source?.holdings.buckets)) {
      bucketItem = names.take(bucketBase(bucket.name));
      items.push({
        kind: "Bucket",
        name: bucketItem,
        id: bucket.id,
        bucketName: bucket.name,
        storageClass: programClass(bucket),
      });
    }
    const credentials = [...(inventory.credentials.get(bucket.id) ?? [])]
      .sort(byKey)
      .filter((c) => wanted("BucketCredential", c.access_key_id, target.credentials, source?.holdings.credentials));
    const suffixes = keySuffixes(credentials.map((c) => c.access_key_id));
    for (const c of credentials) {
      items.push({
        kind: "BucketCredential",
        name: names.take(`${bucketItem ?? bucketBase(bucket.name)}Key${suffixes.get(c.access_key_id) ?? ""}`),
        id: `${bucket.id}/${c.access_key_id}`,
        bucketId: bucket.id,
        accessKeyId: c.access_key_id,
        active: c.active,
        bucketName: bucket.name,
        bucket: bucketItem,
      });
    }
  }
  return { items, managed, skipped };
}

/**
 * What a moved stack holds that does not come along: what the platform no longer has, and what
 * cannot be imported (the API key, transcripts). It stays in the old stack, whose delete of these
 * removes them from its state only.
 */
function movedSkips(inventory: Inventory, source: { name: string; holdings: StackHoldings }): Skipped[] {
  const live = new Set([
    ...inventory.zones.map((z) => z.id),
    ...inventory.buckets.map((b) => b.id),
    ...[...inventory.credentials.values()].flatMap((list) => list.map((c) => c.access_key_id)),
  ]);
  const skipped: Skipped[] = [];
  for (const r of source.holdings.resources) {
    const label = `${r.kind} "${r.name}" of stack ${source.name}`;
    if (r.kind === "ApiKey") {
      skipped.push({ ...apiKeySkipped, what: `${label} (the project API key)` });
    } else if (r.kind === "Transcript") {
      skipped.push({
        what: label,
        why: "a transcription job cannot be imported: the platform has no way to look one up by a stack",
        todo:
          "keep it in the old stack (its text stays in that stack's state; deleting it there changes nothing on " +
          "the platform), or declare it in the new program, which starts a new, charged job",
      });
    } else if (!live.has(r.id)) {
      skipped.push({
        what: label,
        why: `the platform no longer has it (${r.id})`,
        todo: `run \`pulumi refresh\` on stack ${source.name} to drop it from that stack`,
      });
    }
  }
  return skipped;
}

export function counts(items: readonly Item[]): Counts {
  const c = zero();
  for (const item of items) c[item.kind] += 1;
  return c;
}

export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** `2 zones, 3 buckets, 7 credentials`. */
export function countText(c: Counts): string {
  return [
    plural(c.DnsZone, "zone", "zones"),
    plural(c.Bucket, "bucket", "buckets"),
    plural(c.BucketCredential, "credential", "credentials"),
  ].join(", ");
}

/** The summary line: counts per type, what was left out, and what was skipped and why. */
export function summary(p: Plan, stack: string | undefined): string {
  const found = counts(p.items);
  const total = found.DnsZone + found.Bucket + found.BucketCredential;
  const managedTotal = p.managed.DnsZone + p.managed.Bucket + p.managed.BucketCredential;
  const parts = [`${countText(found)} to import (${plural(total, "object", "objects")})`];
  if (stack !== undefined) parts.push(`${managedTotal} already managed by stack ${stack} left out`);
  parts.push(
    p.skipped.length === 0
      ? "nothing skipped"
      : `${p.skipped.length} skipped: ${p.skipped.map((s) => `${s.what} (${s.why.split(":")[0]})`).join("; ")}`,
  );
  return `cloudplatform-import: ${parts.join("; ")}.`;
}
