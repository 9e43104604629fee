/**
 * Typed calls of the management API (docs/api-contract.md §3–§6) over `ApiClient.request`.
 */
import { pathOf, type ApiClient } from "./client.js";
import { isNotFound } from "./errors.js";
import { registerSecret } from "./redact.js";
import {
  apiKeySchema,
  bucketListSchema,
  bucketSchema,
  credentialListSchema,
  credentialSchema,
  credentialWithSecretSchema,
  zoneListSchema,
  zoneSchema,
  type ApiKeyResponse,
  type Bucket,
  type Credential,
  type CredentialWithSecret,
  type Zone,
} from "./shapes.js";

export async function rotateApiKey(client: ApiClient): Promise<ApiKeyResponse> {
  const res = await client.request({
    method: "POST",
    path: "/security/apikey",
    schema: apiKeySchema,
    // Repeating a generate-or-rotate cannot duplicate anything: the last key returned is the valid one.
    idempotent: true,
  });
  registerSecret(res.data.api_key);
  return res.data;
}

export async function listZones(client: ApiClient, name?: string): Promise<Zone[]> {
  const res = await client.request({ method: "GET", path: "/dns/zones", query: { name }, schema: zoneListSchema });
  // The name filter is an assumption of the contract: filter again in case the server ignores it.
  return name === undefined ? res.data : res.data.filter((z) => z.name === name);
}

export async function getZone(client: ApiClient, id: string): Promise<Zone> {
  return (await client.request({ method: "GET", path: pathOf`/dns/zones/${id}`, schema: zoneSchema })).data;
}

export async function createZone(client: ApiClient, name: string): Promise<Zone> {
  const res = await client.request({
    method: "POST",
    path: "/dns/zones",
    body: { name },
    schema: zoneSchema,
    reconcile: async () => (await listZones(client, name))[0],
  });
  return res.data;
}

export async function deleteZone(client: ApiClient, id: string): Promise<void> {
  await ignoreNotFound(client.request({ method: "DELETE", path: pathOf`/dns/zones/${id}` }));
}

export async function listBuckets(client: ApiClient, name?: string): Promise<Bucket[]> {
  const res = await client.request({
    method: "GET",
    path: "/object-storage/buckets",
    query: { name },
    schema: bucketListSchema,
  });
  return name === undefined ? res.data : res.data.filter((b) => b.name === name);
}

export async function findBucketByName(client: ApiClient, name: string): Promise<Bucket | undefined> {
  return (await listBuckets(client, name))[0];
}

export async function getBucket(client: ApiClient, id: string): Promise<Bucket> {
  return (await client.request({ method: "GET", path: pathOf`/object-storage/buckets/${id}`, schema: bucketSchema }))
    .data;
}

export async function createBucket(client: ApiClient, name: string, storageClass: string): Promise<Bucket> {
  const res = await client.request({
    method: "POST",
    path: "/object-storage/buckets",
    body: { name, storage_class: storageClass },
    schema: bucketSchema,
    reconcile: () => findBucketByName(client, name),
  });
  return res.data;
}

/** Deletes a bucket; true when it existed. Throws `ConflictError` (`bucket_not_empty`) when not empty. */
export async function deleteBucket(client: ApiClient, id: string): Promise<boolean> {
  return ignoreNotFound(client.request({ method: "DELETE", path: pathOf`/object-storage/buckets/${id}` }));
}

export async function listCredentials(client: ApiClient, bucketId: string): Promise<Credential[]> {
  const res = await client.request({
    method: "GET",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials`,
    schema: credentialListSchema,
  });
  return res.data;
}

/**
 * Creates a credential. Not reconcilable (a second credential cannot be told apart from ours), so
 * it is repeated only when the connection failed before sending; otherwise the client fails with
 * `OutcomeUnknownError`.
 */
export async function createCredential(client: ApiClient, bucketId: string): Promise<CredentialWithSecret> {
  const res = await client.request({
    method: "POST",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials`,
    schema: credentialWithSecretSchema,
  });
  registerSecret(res.data.secret_access_key);
  return res.data;
}

export async function setCredentialActive(
  client: ApiClient,
  bucketId: string,
  accessKeyId: string,
  active: boolean,
): Promise<void> {
  const action = active ? "activate" : "deactivate";
  await client.request({
    method: "POST",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/` + action,
    // Activate and deactivate set a state: repeating them is harmless (contract §6).
    idempotent: true,
    schema: credentialSchema.optional(),
  });
}

export async function regenerateCredential(
  client: ApiClient,
  bucketId: string,
  accessKeyId: string,
): Promise<CredentialWithSecret> {
  const res = await client.request({
    method: "POST",
    path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/regenerate`,
    schema: credentialWithSecretSchema,
    // A repeated regenerate only yields a newer secret; the last answer is the valid one.
    idempotent: true,
  });
  registerSecret(res.data.secret_access_key);
  return res.data;
}

export async function deleteCredential(client: ApiClient, bucketId: string, accessKeyId: string): Promise<boolean> {
  return ignoreNotFound(
    client.request({ method: "DELETE", path: pathOf`/object-storage/buckets/${bucketId}/credentials/${accessKeyId}` }),
  );
}

/** Resolves true when done, false when the object was already gone (404). */
async function ignoreNotFound(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
