/**
 * The property values the engine exchanges with an executable provider, as
 * `@pulumi/pulumi/provider` hands them over: raw `google.protobuf.Struct` JSON, not deserialized.
 * The provider's Configure answers `acceptSecrets`, so secrets arrive (and must leave) as
 * `{ [sigKey]: secretSig, value }` objects. Cores see plain JSON only; this file converts both ways.
 *
 * `pulumi.secret(...)` cannot be returned instead: the host serializes outputs with
 * `Struct.fromJavaScript`, which does not know `Output` objects.
 */
import { unknownValue, type Json, type Props } from "../vocabulary.js";

// Values of @pulumi/pulumi/runtime/rpc (specialSigKey and friends), part of the wire protocol.
const sigKey = "4dabf18193072939515e22adb298388d";
const secretSig = "1b47061264138c4ac30d75fd1eb44270";
const outputValueSig = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
const resourceSig = "5cf8f73096256a8f31e491e813e4eb8e";

export interface Decoded {
  readonly props: Props;
  /** Top-level properties that were secret, or contained a secret. */
  readonly secretKeys: ReadonlySet<string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Plain JSON of one wire value; `found.secret` is set when a secret was unwrapped on the way. */
function plain(value: unknown, found: { secret: boolean }): Json {
  if (Array.isArray(value)) return value.map((v) => plain(v, found));
  if (!isRecord(value)) return (value ?? null) as Json;
  const sig = value[sigKey];
  if (sig === secretSig) {
    found.secret = true;
    return plain(value["value"], found);
  }
  if (sig === outputValueSig) {
    if (value["secret"] === true) found.secret = true;
    return "value" in value ? plain(value["value"], found) : unknownValue;
  }
  // A resource reference: cores take ids, and a custom resource's reference carries one.
  if (sig === resourceSig) return plain(value["id"] ?? value["urn"], found);
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v, found);
  return out;
}

export function decode(bag: unknown): Decoded {
  const props: Props = {};
  const secretKeys = new Set<string>();
  if (!isRecord(bag)) return { props, secretKeys };
  for (const [key, value] of Object.entries(bag)) {
    if (value === undefined) continue;
    const found = { secret: false };
    props[key] = plain(value, found);
    if (found.secret) secretKeys.add(key);
  }
  return { props, secretKeys };
}

export function secret(value: Json): Record<string, Json> {
  return { [sigKey]: secretSig, value };
}

/**
 * Wire form of plain values, with the named top-level properties wrapped as secrets. `undefined`
 * is dropped: the Struct encoder cannot carry it.
 */
export function encode(values: object, secretKeys: Iterable<string>): Record<string, Json> {
  const clean = JSON.parse(JSON.stringify(values)) as Record<string, Json>;
  for (const key of secretKeys) {
    const value = clean[key];
    if (value !== undefined && value !== null) clean[key] = secret(value);
  }
  return clean;
}
