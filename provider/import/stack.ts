/**
 * What a stack holds of the project, read from `pulumi stack export` (no secrets needed): the
 * zones, buckets and credentials it manages, under either type token (the dynamic SDK's
 * `pulumi-nodejs:dynamic/cloudplatform:<Type>` or the plugin's `cloudplatform:index:<Type>`), and
 * every logical name it uses, which new names must not take.
 */

export type Host = "dynamic" | "plugin";

/** One resource of the stack, as the import command needs it. */
export interface HeldResource {
  readonly urn: string;
  readonly name: string;
  readonly type: string;
  readonly host: Host;
  /** The type name, `Bucket`, `DnsZone`, … */
  readonly kind: string;
  /** The platform's id: a bucket's or zone's id, a credential's access key id. */
  readonly id: string;
  /** A credential's bucket. */
  readonly bucketId?: string;
  readonly protect: boolean;
}

export interface StackHoldings {
  readonly zones: ReadonlySet<string>;
  readonly buckets: ReadonlySet<string>;
  /** Access key ids. */
  readonly credentials: ReadonlySet<string>;
  /** Every logical name of the stack's resources. */
  readonly names: ReadonlySet<string>;
  /** The stack's resources of this package. */
  readonly resources: readonly HeldResource[];
}

export const emptyHoldings: StackHoldings = {
  zones: new Set(),
  buckets: new Set(),
  credentials: new Set(),
  names: new Set(),
  resources: [],
};

const tokenPattern = /^(?:(pulumi-nodejs:dynamic\/cloudplatform)|cloudplatform:index):(\w+)$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The resource's own id: a credential imported by `<bucketId>/<accessKeyId>` may keep that id. */
function ownId(kind: string, id: string): string {
  return kind === "BucketCredential" && id.includes("/") ? id.slice(id.lastIndexOf("/") + 1) : id;
}

/** Reads `pulumi stack export`. */
export function readHoldings(exported: unknown): StackHoldings {
  const deployment = isObj(exported) && isObj(exported["deployment"]) ? exported["deployment"] : {};
  const all = Array.isArray(deployment["resources"]) ? deployment["resources"].filter(isObj) : [];
  const zones = new Set<string>();
  const buckets = new Set<string>();
  const credentials = new Set<string>();
  const names = new Set<string>();
  const resources: HeldResource[] = [];
  for (const r of all) {
    const urn = str(r["urn"]) ?? "";
    const name = urn.split("::").slice(3).join("::");
    if (name !== "") names.add(name);
    const match = tokenPattern.exec(str(r["type"]) ?? "");
    const rawId = str(r["id"]);
    if (match === null || rawId === undefined || r["delete"] === true) continue;
    const kind = match[2] as string;
    const outputs = isObj(r["outputs"]) ? r["outputs"] : {};
    const id = ownId(kind, rawId);
    const bucketId = kind === "BucketCredential" ? str(outputs["bucketId"]) : undefined;
    resources.push({
      urn,
      name,
      type: str(r["type"]) as string,
      host: match[1] === undefined ? "plugin" : "dynamic",
      kind,
      id,
      ...(bucketId === undefined ? {} : { bucketId }),
      protect: r["protect"] === true,
    });
    if (kind === "DnsZone") zones.add(id);
    else if (kind === "Bucket") buckets.add(id);
    else if (kind === "BucketCredential") credentials.add(id);
  }
  return { zones, buckets, credentials, names, resources };
}
