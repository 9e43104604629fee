/**
 * Response shapes of docs/api-contract.md with the variants it accepts: a `data` envelope, lists
 * under `items` or the collection name, ids in `id` / `uuid` / `<kind>_id`, camelCase spellings,
 * and `active` / `status` / `enabled` for a credential's state. Each raw body is first brought to
 * the canonical snake_case shape, then checked by a strict-enough zod schema.
 */
import { z } from "zod";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Removes one `{"data": X}` envelope. */
export function unwrapData(v: unknown): unknown {
  return isObj(v) && "data" in v && Object.keys(v).every((k) => k === "data" || k === "meta" || k === "links")
    ? v["data"]
    : v;
}

/** Keys of a body for error messages: top level, and inside a `data` envelope. Never values. */
export function receivedKeys(v: unknown): string[] {
  if (Array.isArray(v)) return ["(array)"];
  if (!isObj(v)) return [v === null ? "(null)" : `(${typeof v})`];
  const keys = Object.keys(v);
  if (isObj(v["data"])) keys.push(...Object.keys(v["data"]).map((k) => `data.${k}`));
  return keys;
}

/** snake_cases the keys of one object (not nested ones: the fields we read are flat). */
export function snakeKeys(v: unknown): unknown {
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) {
    const s = snake(k);
    if (!(s in out) || s === k) out[s] = val;
  }
  return out;
}

/** Canonical object: unwrapped, snake_case, id in `id`. */
export function entity(kind: string, idKeys: readonly string[] = ["id", "uuid", `${kind}_id`]) {
  return (raw: unknown): unknown => {
    const v = snakeKeys(unwrapData(raw));
    if (!isObj(v)) return v;
    const id = idKeys.map((k) => v[k]).find((x) => typeof x === "string" || typeof x === "number");
    return id === undefined ? v : { ...v, id: String(id) };
  };
}

/** Canonical list: unwrapped from `data`, `items` or the collection key. */
function list(collection: string) {
  return (raw: unknown): unknown => {
    const v = unwrapData(raw);
    if (Array.isArray(v)) return v;
    if (isObj(v)) {
      for (const key of ["items", collection, "results"]) if (Array.isArray(v[key])) return v[key];
    }
    return v;
  };
}

export interface ErrorBody {
  readonly apiCode: string | undefined;
  readonly message: string | undefined;
}

/** Reads the error body variants of docs/api-contract.md §2.1. */
export function readErrorBody(text: string): ErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { apiCode: undefined, message: undefined };
  }
  if (typeof json !== "object" || json === null) return { apiCode: undefined, message: undefined };
  const o = json as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
  if (typeof o["error"] === "object" && o["error"] !== null) {
    const e = o["error"] as Record<string, unknown>;
    return { apiCode: str(e["code"]), message: str(e["message"]) ?? str(o["message"]) };
  }
  return {
    apiCode: str(o["code"]) ?? str(o["error"]),
    message: str(o["message"]) ?? str(o["detail"]) ?? str(o["error_description"]),
  };
}

const optString = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);

export const zoneSchema = z.preprocess(
  entity("zone"),
  z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    status: optString,
    nameservers: z
      .array(z.string())
      .nullish()
      .transform((v) => v ?? []),
    created_at: optString,
  }),
);
export type Zone = z.infer<typeof zoneSchema>;
export const zoneListSchema = z.preprocess(list("zones"), z.array(zoneSchema));

export const bucketSchema = z.preprocess(
  entity("bucket"),
  z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    storage_class: optString,
    created_at: optString,
  }),
);
export type Bucket = z.infer<typeof bucketSchema>;
export const bucketListSchema = z.preprocess(list("buckets"), z.array(bucketSchema));

const inactiveStatuses = new Set(["deactivated", "inactive", "disabled", "suspended"]);

function credentialCanonical(raw: unknown): unknown {
  const v = snakeKeys(unwrapData(raw));
  if (!isObj(v)) return v;
  const out: Obj = { ...v };
  if (out["access_key_id"] === undefined) out["access_key_id"] = out["access_key"] ?? out["key_id"] ?? out["id"];
  if (typeof out["active"] !== "boolean") {
    if (typeof out["status"] === "string") out["active"] = !inactiveStatuses.has(out["status"].toLowerCase());
    else if (typeof out["enabled"] === "boolean") out["active"] = out["enabled"];
    else if (typeof out["is_active"] === "boolean") out["active"] = out["is_active"];
  }
  if (out["secret_access_key"] === undefined && typeof out["secret_key"] === "string")
    out["secret_access_key"] = out["secret_key"];
  return out;
}

const credentialFields = z.object({
  access_key_id: z.string().min(1),
  active: z.boolean().optional(),
  bucket_id: optString,
  created_at: optString,
});

/** A listed credential (no secret), or the answer of activate / deactivate. */
export const credentialSchema = z.preprocess(credentialCanonical, credentialFields);
export type Credential = z.infer<typeof credentialSchema>;
export const credentialListSchema = z.preprocess(list("credentials"), z.array(credentialSchema));

/** The answer of create and regenerate: the secret is required. */
export const credentialWithSecretSchema = z.preprocess(
  credentialCanonical,
  credentialFields.extend({ secret_access_key: z.string().min(1) }),
);
export type CredentialWithSecret = z.infer<typeof credentialWithSecretSchema>;

export const apiKeySchema = z.preprocess(
  (raw: unknown) => {
    const v = snakeKeys(unwrapData(raw));
    if (!isObj(v)) return v;
    const key = ["api_key", "key", "token", "value"].map((k) => v[k]).find((x) => typeof x === "string");
    return { ...v, api_key: key };
  },
  z.object({ api_key: z.string().min(1), created_at: optString }),
);
export type ApiKeyResponse = z.infer<typeof apiKeySchema>;
