/**
 * What `cloudplatform-recover` does about a stack whose deployment was interrupted on a machine
 * whose recovery journal is gone (a CI runner): from the stack's own record of the creates it had
 * in flight (`pending_operations` of type `creating`, which keep each create's checked inputs), it
 * finds the objects those creates made on the platform that the stack does not hold, so that the
 * next `pulumi up` makes them again without leaving the first ones behind.
 *
 * An object is only deleted when it cannot be anyone else's: not held by the stack, named as the
 * pending create named it (an auto-named bucket's random name, or a name the stack's program gives),
 * and created after the interrupted deployment started. Credentials are deleted only on a bucket
 * the stack created itself, and only as many as it had creates in flight there; anything else is
 * listed for the user to decide (`--delete`).
 */
import { isAutoNameOf } from "../resources/bucket/auto-name.js";
import type { Credential } from "../platform/bucket-credential/parse.js";
import type { Bucket } from "../platform/bucket/parse.js";
import type { Zone } from "../platform/dns-zone/parse.js";

/** The resource types whose pending creates leave objects behind, as the type tokens name them. */
export type Kind = "Bucket" | "DnsZone" | "BucketCredential" | "RotatingBucketCredential" | "Transcript" | "ApiKey";

const tokenPattern = /^(?:pulumi-nodejs:dynamic\/cloudplatform|cloudplatform:index):(\w+)$/;

function kindOf(type: unknown): Kind | undefined {
  const m = typeof type === "string" ? tokenPattern.exec(type) : null;
  const kind = m?.[1];
  return kind === "Bucket" ||
    kind === "DnsZone" ||
    kind === "BucketCredential" ||
    kind === "RotatingBucketCredential" ||
    kind === "Transcript" ||
    kind === "ApiKey"
    ? kind
    : undefined;
}

export interface PendingCreate {
  readonly kind: Kind;
  /** The resource's logical name (the last part of its URN). */
  readonly name: string;
  /** A bucket's or zone's name as check decided it. */
  readonly objectName?: string;
  /** A credential's bucket. */
  readonly bucketId?: string;
  /** How many credentials the create makes: two for a RotatingBucketCredential, less those it takes over. */
  readonly credentials?: number;
}

/** What the stack's state says. */
export interface StackView {
  readonly pending: readonly PendingCreate[];
  readonly heldBuckets: ReadonlySet<string>;
  /** Buckets the stack created itself (not adopted): their credentials are the stack's to clean. */
  readonly ownBuckets: ReadonlySet<string>;
  readonly heldZones: ReadonlySet<string>;
  readonly heldCredentials: ReadonlySet<string>;
  /**
   * When the interrupted deployment started at the earliest (epoch ms): the end of the stack's last
   * finished deployment, else the creation of its stack resource (the first deployment's start).
   * Undefined when unknown: then no object is taken for the interrupted run's by its age.
   */
  readonly since: number | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Reads `pulumi stack export` (no secrets needed) and the end time of the last finished deployment. */
export function readStack(exported: unknown, lastDeploymentEnd?: number): StackView {
  const deployment = isObj(exported) && isObj(exported["deployment"]) ? exported["deployment"] : {};
  const resources = Array.isArray(deployment["resources"]) ? deployment["resources"].filter(isObj) : [];
  const operations = Array.isArray(deployment["pending_operations"])
    ? deployment["pending_operations"].filter(isObj)
    : [];

  const heldBuckets = new Set<string>();
  const ownBuckets = new Set<string>();
  const heldZones = new Set<string>();
  const heldCredentials = new Set<string>();
  let stackCreated: number | undefined;
  for (const r of resources) {
    const id = str(r["id"]);
    const outputs = isObj(r["outputs"]) ? r["outputs"] : {};
    if (r["type"] === "pulumi:pulumi:Stack") stackCreated = Date.parse(String(r["created"] ?? ""));
    if (id === undefined) continue;
    switch (kindOf(r["type"])) {
      case "Bucket":
        heldBuckets.add(id);
        if (outputs["adopted"] !== true) ownBuckets.add(id);
        break;
      case "DnsZone":
        heldZones.add(id);
        break;
      case "BucketCredential":
        heldCredentials.add(id);
        break;
      case "RotatingBucketCredential":
        for (const key of ["accessKeyId", "previousAccessKeyId"]) {
          const held = str(outputs[key]);
          if (held !== undefined) heldCredentials.add(held);
        }
        break;
      default:
        break;
    }
  }

  const pending: PendingCreate[] = [];
  for (const op of operations) {
    if (op["type"] !== "creating" || !isObj(op["resource"])) continue;
    const resource = op["resource"];
    const kind = kindOf(resource["type"]);
    if (kind === undefined) continue;
    const inputs = isObj(resource["inputs"]) ? resource["inputs"] : {};
    const objectName = kind === "Bucket" || kind === "DnsZone" ? str(inputs["name"]) : undefined;
    const credentials = credentialsMade(kind, inputs);
    const bucketId = credentials > 0 ? str(inputs["bucketId"]) : undefined;
    pending.push({
      kind,
      name:
        String(resource["urn"] ?? "")
          .split("::")
          .pop() ?? "",
      ...(objectName === undefined ? {} : { objectName }),
      ...(bucketId === undefined ? {} : { bucketId, credentials }),
    });
  }

  const candidates = [lastDeploymentEnd, stackCreated].filter((t): t is number => t !== undefined && !Number.isNaN(t));
  return {
    pending,
    heldBuckets,
    ownBuckets,
    heldZones,
    heldCredentials,
    since: candidates.length === 0 ? undefined : Math.max(...candidates),
  };
}

/** How many credentials a pending create of `kind` makes on its bucket. */
function credentialsMade(kind: Kind, inputs: Obj): number {
  if (kind === "BucketCredential") return 1;
  if (kind !== "RotatingBucketCredential") return 0;
  const takenOver = Array.isArray(inputs["takeOver"]) ? inputs["takeOver"].length : 0;
  return Math.max(0, 2 - takenOver);
}

/** What the platform holds, as far as recovery needs it. */
export interface PlatformView {
  bucketNamed(name: string): Promise<Bucket | undefined>;
  zoneNamed(name: string): Promise<Zone | undefined>;
  credentialsOf(bucketId: string): Promise<Credential[]>;
}

export type Action =
  | { readonly kind: "bucket"; readonly id: string; readonly name: string; readonly resource: string }
  | { readonly kind: "zone"; readonly id: string; readonly name: string; readonly resource: string }
  | { readonly kind: "credential"; readonly bucketId: string; readonly accessKeyId: string; readonly resource: string };

export interface Plan {
  /** Objects the interrupted creates made that the stack does not hold: to delete. */
  readonly deletions: readonly Action[];
  /** What recovery cannot decide: the user must (the command fails until they do). */
  readonly decisions: readonly string[];
  /** What the user should know and need not act on. */
  readonly notes: readonly string[];
}

/** How far the platform's clock may be behind the machine that recorded the deployment's times. */
const clockSkewMs = 5 * 60_000;

/**
 * Whether an object of `created_at` was made after the interrupted deployment started. Undefined
 * when either time is unknown.
 */
function madeSince(createdAt: string | undefined, since: number | undefined): boolean | undefined {
  if (createdAt === undefined || since === undefined) return undefined;
  const t = Date.parse(createdAt);
  return Number.isNaN(t) ? undefined : t >= since - clockSkewMs;
}

/** Recovery's plan for `stack` against `platform`; `explicit` are credentials the user named with `--delete`. */
export async function plan(
  stack: StackView,
  platform: PlatformView,
  explicit: readonly { bucketId: string; accessKeyId: string }[] = [],
): Promise<Plan> {
  const deletions: Action[] = [];
  const decisions: string[] = [];
  const notes: string[] = [];
  const deletedBuckets = new Set<string>();

  for (const p of stack.pending) {
    const label = `${p.kind} "${p.name}"`;
    if (p.kind === "Bucket" && p.objectName !== undefined) {
      const bucket = await platform.bucketNamed(p.objectName);
      if (bucket === undefined || stack.heldBuckets.has(bucket.id)) continue;
      const recent = madeSince(bucket.created_at, stack.since);
      if (recent === true || (recent === undefined && isAutoNameOf(p.objectName, p.name))) {
        deletions.push({ kind: "bucket", id: bucket.id, name: bucket.name, resource: label });
        deletedBuckets.add(bucket.id);
      } else {
        decisions.push(
          `${label}: a bucket named "${p.objectName}" (${bucket.id}) exists but the stack does not hold it, and it ` +
            "may be older than the interrupted deployment. If it is this stack's, set adopt: true on the resource; " +
            "otherwise give the resource another name.",
        );
      }
    } else if (p.kind === "DnsZone" && p.objectName !== undefined) {
      const zone = await platform.zoneNamed(p.objectName);
      if (zone === undefined || stack.heldZones.has(zone.id)) continue;
      if (madeSince(zone.created_at, stack.since) === true) {
        deletions.push({ kind: "zone", id: zone.id, name: zone.name, resource: label });
      } else {
        decisions.push(
          `${label}: a zone named "${p.objectName}" (${zone.id}) exists but the stack does not hold it, and it may be ` +
            "older than the interrupted deployment. If it is this stack's, set adopt: true on the resource; " +
            "otherwise delete it or pick another name.",
        );
      }
    } else if (p.kind === "Transcript") {
      notes.push(
        `${label}: its job may have started; the platform cannot list jobs, so it cannot be found. If it ran it is ` +
          "charged; the next `pulumi up` starts a new one.",
      );
    } else if (p.kind === "ApiKey") {
      notes.push(
        `${label}: the project API key may have been rotated. If the provider authenticated with it, set the new key ` +
          "from the dashboard (`pulumi config set --secret cloudplatform:apiKey <key>`).",
      );
    }
  }

  // Per bucket, the pending creates of credentials: one label per credential they make.
  const pendingPerBucket = new Map<string, string[]>();
  for (const p of stack.pending) {
    if (p.bucketId === undefined || (p.credentials ?? 0) === 0) continue;
    const labels = Array.from({ length: p.credentials ?? 0 }, () => `${p.kind} "${p.name}"`);
    pendingPerBucket.set(p.bucketId, [...(pendingPerBucket.get(p.bucketId) ?? []), ...labels]);
  }
  // The user's `--delete` answers the question recovery asked about that bucket's credentials.
  const answered = new Set(explicit.map((e) => e.bucketId));
  for (const [bucketId, names] of pendingPerBucket) {
    // Deleting the bucket deletes its credentials (docs/api-contract.md §5).
    if (deletedBuckets.has(bucketId) || answered.has(bucketId)) continue;
    const label = [...new Set(names)].join(", ");
    const unheld = (await platform.credentialsOf(bucketId)).filter((c) => !stack.heldCredentials.has(c.access_key_id));
    if (unheld.length === 0) continue;
    const own = stack.ownBuckets.has(bucketId);
    const recent = unheld.filter((c) => madeSince(c.created_at, stack.since) === true);
    if (own && recent.length === unheld.length && unheld.length <= names.length) {
      for (const c of unheld)
        deletions.push({ kind: "credential", bucketId, accessKeyId: c.access_key_id, resource: label });
    } else {
      const ids = unheld.map((c) => `${bucketId}/${c.access_key_id}`).join(",");
      decisions.push(
        `${label}: bucket ${bucketId} holds ${unheld.length} credential(s) the stack does not hold ` +
          `(${unheld.map((c) => c.access_key_id).join(", ")}) that cannot all be told to be the interrupted ` +
          `creates' (${own ? "more than were in flight, or older than the deployment" : "the stack did not create that bucket"}). ` +
          `Delete those that are this stack's with \`cloudplatform-recover --yes --delete ${ids}\` (leave out the others).`,
      );
    }
  }

  for (const e of explicit) {
    if (stack.heldCredentials.has(e.accessKeyId)) {
      decisions.push(`--delete ${e.bucketId}/${e.accessKeyId}: the stack holds that credential; it is not deleted.`);
    } else {
      deletions.push({ kind: "credential", ...e, resource: "--delete" });
    }
  }
  return { deletions, decisions, notes };
}
