/**
 * One credentials list per bucket for a short while: a refresh reads every credential of a stack
 * concurrently in one provider process, and N credentials of one bucket should cost one request,
 * not N. Every change to a bucket's credentials, or to the bucket, forgets its entry.
 */
import { listCredentials } from "../api.js";
import type { ApiClient } from "../client.js";
import type { Credential } from "../shapes.js";

const ttlMs = 2_000;
const cache = new Map<string, { at: number; list: Promise<Credential[]> }>();

export function cachedCredentialList(api: ApiClient, bucketId: string): Promise<Credential[]> {
  const hit = cache.get(bucketId);
  if (hit !== undefined && Date.now() - hit.at < ttlMs) return hit.list;
  const list = listCredentials(api, bucketId);
  cache.set(bucketId, { at: Date.now(), list });
  list.catch(() => cache.delete(bucketId));
  return list;
}

export function forgetCredentialList(bucketId: string): void {
  cache.delete(bucketId);
}

/** For tests. */
export function clearCredentialListCache(): void {
  cache.clear();
}
