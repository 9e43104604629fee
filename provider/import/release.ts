/**
 * The end of a move between the dynamic SDK and the plugin: once the new stack holds every zone,
 * bucket and credential the old stack held, the old stack lets them go. They are removed from its
 * state (`pulumi state delete`), so that its `destroy` deletes none of them; nothing is deleted or
 * changed on the platform. Before that, the secrets the old stack knows (the credentials it
 * created or rotated) are carried into the new stack's state, where a take-over or import left them
 * unknown: through the CLI's own export and import, in this process's memory only.
 */
import { pulumi, stackExport, type StackRef } from "../pulumi-cli.js";
import type { HeldResource, StackHoldings } from "./stack.js";

/** The kinds a move brings along; the API key and transcripts stay in the old stack. */
const movable = new Set(["DnsZone", "Bucket", "BucketCredential"]);

export interface ReleasePlan {
  /** The old stack's resources to remove from its state. */
  readonly urns: readonly string[];
  /** Of those, how many are protected (removed all the same: the object itself is not touched). */
  readonly protectedCount: number;
  /** Objects of the old stack the new one does not hold: nothing is released while there are any. */
  readonly missing: readonly HeldResource[];
  readonly notes: readonly string[];
}

function holds(target: StackHoldings, r: HeldResource): boolean {
  if (r.kind === "DnsZone") return target.zones.has(r.id);
  if (r.kind === "Bucket") return target.buckets.has(r.id);
  return target.credentials.has(r.id);
}

export function releasePlan(source: StackHoldings, target: StackHoldings): ReleasePlan {
  const moved = source.resources.filter((r) => movable.has(r.kind));
  const missing = moved.filter((r) => !holds(target, r));
  const staying = source.resources.filter((r) => !movable.has(r.kind));
  const notes = staying.map(
    (r) =>
      `${r.kind} "${r.name}" stays in the old stack: it cannot be imported, and deleting it there changes nothing ` +
      "on the platform.",
  );
  return {
    urns: missing.length > 0 ? [] : moved.map((r) => r.urn),
    protectedCount: moved.filter((r) => r.protect).length,
    missing,
    notes,
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const credentialType = /^(?:pulumi-nodejs:dynamic\/cloudplatform|cloudplatform:index):BucketCredential$/;

function credentials(exported: unknown): Obj[] {
  const deployment = isObj(exported) && isObj(exported["deployment"]) ? exported["deployment"] : {};
  const resources = Array.isArray(deployment["resources"]) ? deployment["resources"].filter(isObj) : [];
  return resources.filter((r) => credentialType.test(String(r["type"])) && isObj(r["outputs"]));
}

/** How `stack export --show-secrets` marks a secret value; `stack import` encrypts it again. */
const secretSignature = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270" };

/** The secret a state holds, marked as a secret whatever form the state kept it in, if any. */
function knownSecret(outputs: Obj): Obj | undefined {
  const value = outputs["secretAccessKey"];
  const plain = isObj(value) ? value["plaintext"] : JSON.stringify(value ?? "");
  if (typeof plain !== "string" || plain === '""' || plain === "") return undefined;
  return { ...secretSignature, plaintext: plain };
}

const accessKeyOf = (r: Obj): string => {
  const outputs = r["outputs"] as Obj;
  return String(outputs["accessKeyId"] ?? r["id"] ?? "");
};

/**
 * Copies into `target`'s state the secret of every credential it holds unknown (`secretKnown:
 * false`) that `source` knows; returns how many. The states pass through this process only.
 */
export async function carrySecrets(source: StackRef, target: StackRef): Promise<number> {
  const known = new Map<string, unknown>();
  for (const r of credentials(await stackExport(source, true))) {
    const secret = knownSecret(r["outputs"] as Obj);
    if (secret !== undefined) known.set(accessKeyOf(r), secret);
  }
  if (known.size === 0) return 0;
  const exported = await stackExport(target, true);
  let carried = 0;
  for (const r of credentials(exported)) {
    const outputs = r["outputs"] as Obj;
    const secret = known.get(accessKeyOf(r));
    if (outputs["secretKnown"] !== false || secret === undefined) continue;
    outputs["secretAccessKey"] = secret;
    outputs["secretKnown"] = true;
    carried++;
  }
  if (carried > 0) await pulumi(target, ["stack", "import"], JSON.stringify(exported));
  return carried;
}
